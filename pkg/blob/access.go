package blob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/aws/smithy-go"
	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"

	"gocloud.dev/gcerrors"
)

// Errors an *AccessError wraps: what kept the package from using a bucket
// at all.
var (
	// ErrNoCredentials reports that no credentials for the cloud were found.
	ErrNoCredentials = errors.New("jobevent/blob: no credentials")
	// ErrAccessDenied reports that the bucket refused the credentials.
	ErrAccessDenied = errors.New("jobevent/blob: access denied")
	// ErrUnreachable reports that the bucket's endpoint did not answer in
	// time, or could not be connected to.
	ErrUnreachable = errors.New("jobevent/blob: bucket unreachable")
)

// AccessError reports that a bucket of a cloud scheme could not be used: no
// credentials, credentials refused, or an endpoint that does not answer.
// Its message is one line naming the bucket, the problem and what to set or
// check, e.g.
//
//	s3://ops-logs: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or use an instance role
//
// never the SDK's chain of nested errors. It matches ErrNoCredentials,
// ErrAccessDenied or ErrUnreachable.
type AccessError struct {
	Bucket  string // scheme://bucket
	Problem string // e.g. "no AWS credentials", "access denied (InvalidAccessKeyId)"
	Hint    string // what to set or check
	Err     error  // ErrNoCredentials, ErrAccessDenied or ErrUnreachable
}

// Error returns "BUCKET: PROBLEM: HINT".
func (e *AccessError) Error() string {
	if e.Hint == "" {
		return e.Bucket + ": " + e.Problem
	}
	return e.Bucket + ": " + e.Problem + ": " + e.Hint
}

// Unwrap returns the sentinel: ErrNoCredentials, ErrAccessDenied or
// ErrUnreachable.
func (e *AccessError) Unwrap() error { return e.Err }

// isAccessError reports whether err is, or wraps, an *AccessError.
func isAccessError(err error) bool {
	var ae *AccessError
	return errors.As(err, &ae)
}

// isRetryable reports whether a failed write may succeed when tried again:
// everything but an object that exists, missing or refused credentials.
func isRetryable(err error) bool {
	return !errors.Is(err, ErrNoCredentials) && !errors.Is(err, ErrAccessDenied)
}

// cloudInfo describes the bucket of a cloud scheme, for error messages.
type cloudInfo struct {
	scheme   string // s3, gs or azblob
	bucket   string // scheme://bucket
	endpoint string // the endpoint, when the URL or environment names one
}

// credentialHints are what each scheme's messages tell people to set.
var credentialHints = map[string]string{
	"s3":     "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), or use an instance role",
	"gs":     "set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, or run `gcloud auth application-default login`, or add ?anonymous=true for a public bucket",
	"azblob": "set AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY (or AZURE_STORAGE_SAS_TOKEN, or AZURE_STORAGE_CONNECTION_STRING), or sign in with `az login` or a managed identity and set AZURE_STORAGE_ACCOUNT",
}

// cloudNames name each scheme's credentials in messages.
var cloudNames = map[string]string{"s3": "AWS", "gs": "Google Cloud", "azblob": "Azure"}

// noCredentials returns the AccessError of a scheme without credentials;
// detail, if any, says what was found wanting.
func (c *cloudInfo) noCredentials(detail string) *AccessError {
	problem := "no " + cloudNames[c.scheme] + " credentials"
	if detail != "" {
		problem += " (" + detail + ")"
	}
	return &AccessError{Bucket: c.bucket, Problem: problem, Hint: credentialHints[c.scheme], Err: ErrNoCredentials}
}

// classify turns an error of a request to the bucket into an *AccessError
// when it says that the bucket cannot be used at all, and returns nil
// otherwise. parent is the caller's context: a deadline or cancellation
// while it is still live comes from the request's own timeout.
func (c *cloudInfo) classify(parent context.Context, err error, timeout time.Duration) *AccessError {
	if c == nil || err == nil {
		return nil
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return c.unreachable("cannot resolve " + dns.Name)
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return c.unreachable("cannot connect to " + addrOf(op))
	}
	if parent.Err() == nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		gcerrors.Code(err) == gcerrors.DeadlineExceeded || gcerrors.Code(err) == gcerrors.Canceled) {
		problem := fmt.Sprintf("no answer within %v", timeout)
		if c.endpoint != "" {
			problem += " from " + c.endpoint
		}
		return c.unreachable(problem)
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return &AccessError{Bucket: c.bucket, Problem: "credentials refused by the token endpoint" + tokenCause(re),
			Hint: "check them: " + credentialHints[c.scheme], Err: ErrAccessDenied}
	}
	if isCredentialError(err) {
		return c.noCredentials("")
	}
	if gcerrors.Code(err) == gcerrors.PermissionDenied || httpStatus(err) == 401 || httpStatus(err) == 403 {
		problem := "access denied"
		if code := apiErrorCode(err); code != "" {
			problem += " (" + code + ")"
		}
		return &AccessError{Bucket: c.bucket, Problem: problem,
			Hint: "check the " + cloudNames[c.scheme] + " credentials and their permissions on the bucket (" + credentialHints[c.scheme] + ")",
			Err:  ErrAccessDenied}
	}
	return nil
}

func (c *cloudInfo) unreachable(problem string) *AccessError {
	return &AccessError{Bucket: c.bucket, Problem: problem,
		Hint: "check the endpoint, the network and the region", Err: ErrUnreachable}
}

func addrOf(op *net.OpError) string {
	msg := "the endpoint"
	if op.Addr != nil {
		msg = op.Addr.String()
	}
	if op.Err != nil {
		var sys interface{ Unwrap() error }
		cause := op.Err
		if errors.As(cause, &sys) && sys.Unwrap() != nil {
			cause = sys.Unwrap()
		}
		msg += ": " + cause.Error()
	}
	return msg
}

// isCredentialError reports whether err says that the SDK found no
// credentials. The SDKs do not export a type for every case, so their
// stable message prefixes are matched.
func isCredentialError(err error) bool {
	msg := err.Error()
	for _, s := range []string{
		"failed to retrieve credentials",       // aws-sdk-go-v2 signer
		"failed to refresh cached credentials", // aws-sdk-go-v2 credentials cache
		"DefaultAzureCredential",               // azidentity chain
		"could not find default credentials",   // golang.org/x/oauth2/google
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// tokenCause returns " (CODE)" for the answer of an OAuth2 token endpoint:
// its error code (RFC 6749 section 5.2), or else the HTTP status.
func tokenCause(re *oauth2.RetrieveError) string {
	code := re.ErrorCode
	if code == "" {
		var body struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(re.Body, &body) == nil {
			code = body.Error
		}
	}
	switch {
	case code != "":
		return " (" + code + ")"
	case re.Response != nil:
		return " (" + re.Response.Status + ")"
	}
	return ""
}

// apiErrorCode returns the error code of the cloud's API in err, if any:
// InvalidAccessKeyId, AuthenticationFailed, ...
func apiErrorCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	var az *azcore.ResponseError
	if errors.As(err, &az) {
		return az.ErrorCode
	}
	var g *googleapi.Error
	if errors.As(err, &g) {
		if len(g.Errors) > 0 && g.Errors[0].Reason != "" {
			return g.Errors[0].Reason
		}
		return fmt.Sprintf("HTTP %d", g.Code)
	}
	return ""
}

// httpStatus returns the HTTP status code in err, if any.
func httpStatus(err error) int {
	var az *azcore.ResponseError
	if errors.As(err, &az) {
		return az.StatusCode
	}
	var g *googleapi.Error
	if errors.As(err, &g) {
		return g.Code
	}
	var hs interface{ HTTPStatusCode() int }
	if errors.As(err, &hs) {
		return hs.HTTPStatusCode()
	}
	return 0
}
