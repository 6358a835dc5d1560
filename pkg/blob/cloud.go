package blob

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"cloud.google.com/go/compute/metadata"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	gcblob "gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
	"gocloud.dev/gcp"
	"google.golang.org/api/option"
)

// The cloud schemes are opened here rather than through gocloud's default
// URL openers, which read credentials once per process (so a changed
// environment is ignored), print a warning to stdout when GCS credentials
// are missing, and leave a missing credential to surface as a chain of
// nested SDK errors at the first request. Each opener below finds the
// credentials the way the cloud's own tools do, from the current
// environment, and reports a missing one as an *AccessError.

// openCloud opens the bucket of an s3://, gs:// or azblob:// location and
// checks, within the prefix, that it exists and that the credentials work.
func openCloud(ctx context.Context, loc *location) (objectStore, error) {
	info := &cloudInfo{scheme: loc.scheme, bucket: loc.scheme + "://" + loc.bucket}
	octx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	var b *gcblob.Bucket
	var err error
	switch loc.scheme {
	case "s3":
		b, err = openS3(octx, loc, info)
	case "gs":
		b, err = openGCS(octx, loc, info)
	case "azblob":
		b, err = openAzure(octx, loc, info)
	default:
		return nil, fmt.Errorf("open %s: %w %q", loc, ErrUnsupportedScheme, loc.scheme)
	}
	if err != nil {
		if isAccessError(err) {
			return nil, err
		}
		if ae := info.classify(ctx, err, requestTimeout); ae != nil {
			return nil, ae
		}
		return nil, fmt.Errorf("open %s: %w", loc, err)
	}
	// Like b.IsAccessible, but within the prefix: credentials may be
	// limited to it.
	_, _, err = b.ListPage(octx, gcblob.FirstPageToken, 1, &gcblob.ListOptions{Prefix: loc.prefix})
	if gcerrors.Code(err) == gcerrors.NotFound {
		b.Close()
		return nil, &NoLogError{URL: loc.String(), Reason: fmt.Sprintf("bucket %q does not exist", loc.bucket)}
	}
	if err != nil {
		b.Close()
		if ae := info.classify(ctx, err, requestTimeout); ae != nil {
			return nil, ae
		}
		if hint := regionHint(loc, err); hint != "" {
			return nil, fmt.Errorf("open %s: %s", loc, hint)
		}
		return nil, fmt.Errorf("open %s: bucket %q: %w", loc, loc.bucket, err)
	}
	return &bucketStore{b: b, prefix: loc.prefix, cloud: info}, nil
}

// s3Params are the URL parameters that s3blob handles itself; the others
// go to gocloud's AWS config (region, endpoint, profile, anonymous, role,
// ...).
var s3Params = []string{"ssetype", "kmskeyid", "accelerate", "use_path_style", "s3ForcePathStyle", "disable_https"}

// openS3 opens an s3:// bucket with the AWS SDK's default credential chain
// (environment, shared config and profile, SSO, web identity, container
// and instance roles), checked before the first request. The SDK's own
// logging, which would write warnings on stderr, is off (see s3Config).
func openS3(ctx context.Context, loc *location, info *cloudInfo) (*gcblob.Bucket, error) {
	q := cloneValues(loc.query)
	info.endpoint = q.Get("endpoint")
	var opts []func(*s3.Options)
	var bopts s3blob.Options
	for _, key := range s3Params {
		v := q.Get(key)
		if _, ok := q[key]; !ok {
			continue
		}
		q.Del(key)
		if err := s3Option(key, v, &opts, &bopts); err != nil {
			return nil, fmt.Errorf("parameter %s: %w", key, err)
		}
	}
	cfg, err := s3Config(ctx, q)
	if err != nil {
		if strings.Contains(err.Error(), "profile") {
			return nil, &AccessError{Bucket: info.bucket, Problem: "AWS profile: " + firstLine(err),
				Hint: "check AWS_PROFILE or ?profile= against ~/.aws/config", Err: ErrNoCredentials}
		}
		return nil, err
	}
	bopts.RequestChecksumCalculation = cfg.RequestChecksumCalculation
	if anon, _ := strconv.ParseBool(q.Get("anonymous")); anon {
		return s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, opts...), loc.bucket, &bopts)
	}
	if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
		if ae := info.classify(context.Background(), err, requestTimeout); ae != nil && !errors.Is(ae, ErrNoCredentials) {
			return nil, ae
		}
		return nil, info.noCredentials("")
	}
	return s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, opts...), loc.bucket, &bopts)
}

// s3Option applies one of s3Params, as s3blob's URL opener does.
func s3Option(key, v string, opts *[]func(*s3.Options), bopts *s3blob.Options) error {
	switch key {
	case "ssetype":
		for _, t := range s3types.ServerSideEncryptionAes256.Values() {
			if strings.EqualFold(string(t), v) {
				bopts.EncryptionType = t
				return nil
			}
		}
		return fmt.Errorf("%q is not a server-side encryption type", v)
	case "kmskeyid":
		bopts.KMSEncryptionID = v
		return nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	switch key {
	case "accelerate":
		*opts = append(*opts, func(o *s3.Options) { o.UseAccelerate = on })
	case "disable_https":
		*opts = append(*opts, func(o *s3.Options) { o.EndpointOptions.DisableHTTPS = on })
	default: // use_path_style, s3ForcePathStyle
		*opts = append(*opts, func(o *s3.Options) { o.UsePathStyle = on })
	}
	return nil
}

// onGCE reports whether the process runs on Google Cloud, where the
// metadata server provides credentials. It probes the metadata server, so
// tests replace it.
var onGCE = metadata.OnGCE

// openGCS opens a gs:// bucket. STORAGE_EMULATOR_HOST (an emulator) and
// ?anonymous=true need no credentials; otherwise Application Default
// Credentials are used: GOOGLE_APPLICATION_CREDENTIALS, the gcloud
// well-known file, or the metadata server on Google Cloud.
func openGCS(ctx context.Context, loc *location, info *cloudInfo) (*gcblob.Bucket, error) {
	u := &url.URL{Scheme: "gs", Host: loc.bucket, RawQuery: loc.query.Encode()}
	anonymous := loc.query.Get("anonymous") == "true" || loc.query.Get("access_id") == "-"
	opener := &gcsblob.URLOpener{}
	if host := os.Getenv("STORAGE_EMULATOR_HOST"); host != "" {
		info.endpoint = host
		anonymous = true
	}
	if anonymous {
		opener.Client = gcp.NewAnonymousHTTPClient(gcp.DefaultTransport())
		return opener.OpenBucketURL(ctx, u)
	}
	path := os.Getenv("GOOGLE_APPLICATION_CREDENTIALS")
	if path == "" && !fileExists(gcloudCredentialsFile()) && !onGCE() {
		return nil, info.noCredentials("")
	}
	creds, err := gcp.DefaultCredentials(ctx)
	if err != nil {
		detail := firstLine(err)
		if path != "" {
			detail = "GOOGLE_APPLICATION_CREDENTIALS=" + path + ": " + detail
		}
		return nil, info.noCredentials(detail)
	}
	opener.Client, err = gcp.NewHTTPClient(gcp.DefaultTransport(), creds.TokenSource)
	if err != nil {
		return nil, err
	}
	opener.TokenSource = gcp.CredentialsTokenSource(creds)
	opener.Options.ClientOptions = gcsClientOptions
	return opener.OpenBucketURL(ctx, u)
}

// gcsClientOptions are extra options of authenticated GCS clients; tests
// point them at a local server.
var gcsClientOptions []option.ClientOption

// gcloudCredentialsFile is where `gcloud auth application-default login`
// leaves its credentials.
func gcloudCredentialsFile() string {
	if dir := os.Getenv("CLOUDSDK_CONFIG"); dir != "" {
		return filepath.Join(dir, "application_default_credentials.json")
	}
	if appData := os.Getenv("APPDATA"); appData != "" && filepath.Separator == '\\' {
		return filepath.Join(appData, "gcloud", "application_default_credentials.json")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "gcloud", "application_default_credentials.json")
}

func fileExists(path string) bool {
	if path == "" {
		return false
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// azureEndpointParams are the URL parameters that choose the service
// endpoint; with a SAS token in the environment they must not send it
// elsewhere.
var azureEndpointParams = []string{"domain", "protocol", "cdn", "localemu", "storage_account"}

// openAzure opens an azblob:// container with, in this order: a shared key
// (AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY), a SAS token
// (AZURE_STORAGE_SAS_TOKEN), a connection string
// (AZURE_STORAGE_CONNECTION_STRING), or Azure AD (azidentity's default
// chain: environment, workload identity, managed identity, Azure CLI) for
// the account AZURE_STORAGE_ACCOUNT or ?storage_account=.
func openAzure(ctx context.Context, loc *location, info *cloudInfo) (*gcblob.Bucket, error) {
	u := &url.URL{Scheme: "azblob", Host: loc.bucket, RawQuery: loc.query.Encode()}
	svc := azureblob.NewDefaultServiceURLOptions()
	account := svc.AccountName
	if v := loc.query.Get("storage_account"); v != "" {
		account = v
	}
	info.endpoint = loc.query.Get("domain")
	key := os.Getenv("AZURE_STORAGE_KEY")
	conn := os.Getenv("AZURE_STORAGE_CONNECTION_STRING")
	if conn == "" {
		conn = os.Getenv("AZURE_STORAGEBLOB_CONNECTIONSTRING")
	}
	var makeClient func(azureblob.ServiceURL, azureblob.ContainerName) (*container.Client, error)
	switch {
	case account != "" && key != "":
		makeClient = func(svcURL azureblob.ServiceURL, name azureblob.ContainerName) (*container.Client, error) {
			cred, err := azblob.NewSharedKeyCredential(account, key)
			if err != nil {
				return nil, info.noCredentials("AZURE_STORAGE_KEY is not a valid key")
			}
			return container.NewClientWithSharedKeyCredential(containerURL(svcURL, name), cred, azureClientOptions())
		}
	case svc.SASToken != "":
		for _, p := range azureEndpointParams {
			if _, ok := loc.query[p]; ok {
				return nil, fmt.Errorf("parameter %s: not allowed with AZURE_STORAGE_SAS_TOKEN, which belongs to one endpoint", p)
			}
		}
		makeClient = func(svcURL azureblob.ServiceURL, name azureblob.ContainerName) (*container.Client, error) {
			return container.NewClientWithNoCredential(containerURL(svcURL, name), azureClientOptions())
		}
	case conn != "":
		makeClient = func(_ azureblob.ServiceURL, name azureblob.ContainerName) (*container.Client, error) {
			return container.NewClientFromConnectionString(conn, string(name), azureClientOptions())
		}
	case account == "":
		return nil, info.noCredentials("no storage account")
	default:
		makeClient = func(svcURL azureblob.ServiceURL, name azureblob.ContainerName) (*container.Client, error) {
			cred, err := azidentity.NewDefaultAzureCredential(nil)
			if err != nil {
				return nil, info.noCredentials("")
			}
			return container.NewClient(containerURL(svcURL, name), cred, azureClientOptions())
		}
	}
	opener := &azureblob.URLOpener{MakeClient: makeClient, ServiceURLOptions: *svc}
	return opener.OpenBucketURL(ctx, u)
}

func containerURL(svcURL azureblob.ServiceURL, name azureblob.ContainerName) string {
	return strings.TrimSuffix(string(svcURL), "/") + "/" + url.PathEscape(string(name))
}

func azureClientOptions() *container.ClientOptions {
	return &container.ClientOptions{ClientOptions: policy.ClientOptions{
		Telemetry: policy.TelemetryOptions{ApplicationID: "jobevent"},
	}}
}

// firstLine returns the first line of err's message.
func firstLine(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	return strings.TrimSpace(line)
}

// regionHint explains an S3 error that comes of having no region: the
// URL names none, and neither does the environment. The usual cause is
// a URL cut short by the shell at an unquoted "&" (the rest,
// "region=...", then runs as a command of its own).
func regionHint(loc *location, err error) string {
	if loc.scheme != "s3" || loc.query.Get("region") != "" || !strings.Contains(strings.ToLower(err.Error()), "region") {
		return ""
	}
	if os.Getenv("AWS_REGION") != "" || os.Getenv("AWS_DEFAULT_REGION") != "" {
		return ""
	}
	return "no AWS region: add &region=REGION to the URL, or set AWS_REGION; in a shell, quote the URL " +
		"('s3://bucket?prefix=p/&region=eu-west-1'): an unquoted & ends the command there"
}
