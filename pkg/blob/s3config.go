package blob

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/logging"
)

// s3Config returns the AWS configuration of an s3:// URL's parameters
// (those that s3blob does not handle itself), as gocloud's
// V2ConfigFromURLParams does, but with the SDK's logging off from the
// start. Turning it off on the loaded configuration is too late: the
// clients made while loading keep the default logger, which writes to
// stderr; among them the instance metadata client at the end of the
// credential chain, which warns "falling back to IMDSv1" on any machine
// that is not an EC2 instance.
func s3Config(ctx context.Context, q url.Values) (aws.Config, error) {
	p, err := parseAWSParams(q)
	if err != nil {
		return aws.Config{}, err
	}
	opts := p.opts
	if p.role != "" {
		// As gocloud: the role's credentials and the region replace the
		// other options.
		base, err := config.LoadDefaultConfig(ctx, append(opts, config.WithLogger(logging.Nop{}))...)
		if err != nil {
			return aws.Config{}, fmt.Errorf("load AWS config for role %s: %w", p.role, err)
		}
		if base.Region == "" {
			return aws.Config{}, errors.New("parameter role: no region: set ?region= or AWS_REGION")
		}
		provider := stscreds.NewAssumeRoleProvider(sts.NewFromConfig(base), p.role)
		opts = []func(*config.LoadOptions) error{config.WithCredentialsProvider(provider), config.WithRegion(base.Region)}
	}
	var limiter retry.RateLimiter = ratelimit.None
	if p.rateLimit > 0 {
		limiter = ratelimit.NewTokenRateLimit(uint(p.rateLimit))
	}
	opts = append(opts, config.WithLogger(logging.Nop{}), config.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) { o.RateLimiter = limiter })
	}))
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, err
	}
	if p.endpoint != "" {
		cfg.EndpointResolverWithOptions = aws.EndpointResolverWithOptionsFunc( //nolint:staticcheck // as gocloud
			func(service, region string, _ ...any) (aws.Endpoint, error) {
				return aws.Endpoint{PartitionID: "aws", URL: p.endpoint, SigningRegion: region,
					HostnameImmutable: p.hostnameImmutable}, nil
			})
	}
	return cfg, nil
}

// awsParams are the AWS parameters of an s3:// URL.
type awsParams struct {
	opts              []func(*config.LoadOptions) error
	endpoint          string
	hostnameImmutable bool
	rateLimit         int64
	role              string // an IAM role ARN to assume
}

// parseAWSParams parses the parameters gocloud's V2ConfigFromURLParams
// takes, with its messages: region, endpoint, hostname_immutable, profile,
// dualstack, fips, rate_limiter_capacity, anonymous, role,
// request_checksum_calculation and response_checksum_validation.
func parseAWSParams(q url.Values) (*awsParams, error) {
	p := &awsParams{}
	for param, values := range q {
		v := values[0]
		var err error
		switch param {
		case "region":
			p.opts = append(p.opts, config.WithRegion(v))
		case "endpoint":
			p.endpoint = v
		case "profile":
			p.opts = append(p.opts, config.WithSharedConfigProfile(v))
		case "hostname_immutable":
			p.hostnameImmutable, err = strconv.ParseBool(v)
		case "rate_limiter_capacity":
			p.rateLimit, err = strconv.ParseInt(v, 10, 32)
		case "role":
			if !strings.HasPrefix(v, "arn:") {
				return nil, fmt.Errorf("invalid value for role: must be a valid ARN (starts with 'arn:'): %s", v)
			}
			p.role = v
		case "dualstack", "fips", "anonymous":
			err = p.flag(param, v)
		case "request_checksum_calculation", "response_checksum_validation":
			err = p.checksum(param, v)
		case "awssdk":
		default:
			return nil, fmt.Errorf("unknown query parameter %q", param)
		}
		if err != nil {
			return nil, fmt.Errorf("invalid value for %s: %w", param, err)
		}
	}
	return p, nil
}

// flag applies the boolean parameter dualstack, fips or anonymous.
func (p *awsParams) flag(param, v string) error {
	on, err := strconv.ParseBool(v)
	if err != nil || !on {
		return err
	}
	switch param {
	case "dualstack":
		p.opts = append(p.opts, config.WithUseDualStackEndpoint(aws.DualStackEndpointStateEnabled))
	case "fips":
		p.opts = append(p.opts, config.WithUseFIPSEndpoint(aws.FIPSEndpointStateEnabled))
	default: // anonymous
		p.opts = append(p.opts, config.WithCredentialsProvider(aws.AnonymousCredentials{}))
	}
	return nil
}

// checksum applies request_checksum_calculation or
// response_checksum_validation: when_supported or when_required.
func (p *awsParams) checksum(param, v string) error {
	required := false
	switch strings.ToLower(v) {
	case "when_supported":
	case "when_required":
		required = true
	default:
		return fmt.Errorf("%q. Valid values are: when_supported, when_required", v)
	}
	if param == "request_checksum_calculation" {
		mode := aws.RequestChecksumCalculationWhenSupported
		if required {
			mode = aws.RequestChecksumCalculationWhenRequired
		}
		p.opts = append(p.opts, config.WithRequestChecksumCalculation(mode))
		return nil
	}
	mode := aws.ResponseChecksumValidationWhenSupported
	if required {
		mode = aws.ResponseChecksumValidationWhenRequired
	}
	p.opts = append(p.opts, config.WithResponseChecksumValidation(mode))
	return nil
}
