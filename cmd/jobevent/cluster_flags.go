package main

import (
	"github.com/urfave/cli/v2"

	"github.com/jobevent/jobevent/pkg/runtime"
)

// The flags that master and worker share: the token and TLS.

// tokenFlag is the shared secret of masters and workers.
func tokenFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "token", Usage: "shared `TOKEN` authenticating master and workers", EnvVars: []string{"JOBEVENT_TOKEN"}}
}

// tlsFlags turn on HTTPS between masters and workers.
func tlsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "tls-cert", Usage: "serve and call peers over mutual HTTPS with the PEM certificate `FILE` (with --tls-key and --tls-ca)"},
		&cli.StringFlag{Name: "tls-key", Usage: "PEM private key `FILE` of --tls-cert"},
		&cli.StringFlag{Name: "tls-ca", Usage: "trust only the peers' certificates signed by the PEM CA `FILE` (required with --tls-cert)"},
	}
}

func tlsFiles(c *cli.Context) runtime.TLSFiles {
	return runtime.TLSFiles{Cert: c.String("tls-cert"), Key: c.String("tls-key"), CA: c.String("tls-ca")}
}

// checkTLS makes a half-given TLS setup a usage error.
func checkTLS(c *cli.Context) error {
	t := tlsFiles(c)
	if (t.Cert == "") != (t.Key == "") || (t.CA == "") != (t.Cert == "") {
		return usagef(c, "TLS needs --tls-cert, --tls-key and --tls-ca together")
	}
	return nil
}
