package redact

import (
	"strings"
	"testing"
)

// TestMechanisms: each mechanism of the shape stage on examples written
// from vendors' published formats, in the places text carries them:
// prose, NAME = value, JSON (with \n escapes), URLs. gone must not
// survive (no 10-byte stretch of it); keep must.
func TestMechanisms(t *testing.T) {
	ovpn := "-----BEGIN OpenVPN Static key V1-----\n" + strings.Repeat("6acef03f62675b4b1bbd03e53b187727\n", 16) + "-----END OpenVPN Static key V1-----"
	ppk := "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20240101\nPublic-Lines: 2\n" +
		"AAAAC3NzaC1lZDI1NTE5AAAAIOp0Xb4k1\nQ2w3e4r5t6y7u8i9o0pA\nPrivate-Lines: 1\nAAAAIBz9Kq3mVb7Xc2Lw8Rt5Yp4Nd6Hs1Jf0Ge\n" +
		"Private-MAC: 5f1e0b7c3a9d2e8f4b6a1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f\n"
	tests := []struct {
		name string
		in   string
		gone []string
		keep []string
	}{
		{"openvpn static key", "config:\n" + ovpn + "\nend", []string{"6acef03f62675b4b1b"}, []string{"config:", "end"}},
		{"openvpn static key in JSON", `{"tls_auth": "` + strings.ReplaceAll(ovpn, "\n", `\n`) + `"}`, []string{"6acef03f62675b4b1b"}, nil},
		{"pgp private key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBGXyQ2kBCAC7d9Xf3Lq2Wm8Zr4Tb1Nc6Ys0Hv5Jp9Ke\n=Xq3r\n-----END PGP PRIVATE KEY BLOCK-----",
			[]string{"lQOYBGXyQ2kBCAC7d9Xf3"}, nil},
		{"ssh2 private key", "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"rsa-key\"\nP2/56wAAAi4AAAA3aWYtbW9kbntzaWdue3JzYS1wa2NzMS1zaGExfSxlbmNyeXB0\n---- END SSH2 ENCRYPTED PRIVATE KEY ----",
			[]string{"P2/56wAAAi4AAAA3aW"}, nil},
		{"truncated private key", "$ head -3 id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBc4dkcWNQp2lGk0vbJ3aFfEJmHx",
			[]string{"b3BlbnNzaC1rZXktdjEAAAAA", "QyNTUxOQAAACBc4dkc"}, []string{"head -3 id_ed25519"}},
		{"label with dashes (OpenVPN tls-crypt-v2)", "-----BEGIN OpenVPN tls-crypt-v2 client key-----\n" + strings.Repeat("q2Vt7PzR1mXc4LsK9bWd0eJy6uHa3fNg5iOk8lTv+Z/QrSx2YwE7DpM1nBhC4GjF\n", 4) + "-----END OpenVPN tls-crypt-v2 client key-----",
			[]string{"q2Vt7PzR1mXc4LsK9bWd"}, nil},
		{"label with dashes in double-escaped JSON", `{"text": "{\\"key\\": \\"-----BEGIN OpenVPN tls-crypt-v2 server key-----\\n` + strings.Repeat(`q2Vt7PzR1mXc4LsK9bWd0eJy6uHa3fNg5iOk8lTv+Z/QrSx2YwE7DpM1nBhC4GjF\\n`, 3) + `-----END OpenVPN tls-crypt-v2 server key-----\\"}"}`,
			[]string{"q2Vt7PzR1mXc4LsK9bWd"}, nil},
		{"ssh2 private key in JSON, quoted comment", `{"key": "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"rsa-key-20240101\"\nP2/56wAAAi4AAAA3aWYtbW9kbntzaWdue3JzYS1wa2NzMS1zaGExfSxlbmNyeXB0\nb3J7YWVzMjU2LWNiY30AAAAEbm9uZQAAAAEAAAAV\n---- END SSH2 ENCRYPTED PRIVATE KEY ----\n"}`,
			[]string{"P2/56wAAAi4AAAA3aW", "b3J7YWVzMjU2LWNiY30A"}, nil},
		{"minisign secret key file", "untrusted comment: minisign encrypted secret key\nRWRTY0IyQ3p8Vn2Lk9Xs4Tq7Wd1Zf6Hb3Mc8Jg5Ne0Ra2Up7Yi4Ko9Ls1Dw6Ex3Fv8Gt5Hu2Ij7Kk0Ll==\n",
			[]string{"RWRTY0IyQ3p8Vn2Lk9Xs"}, []string{"untrusted comment: minisign encrypted secret key"}},
		{"signify secret key in JSON", `{"seckey": "untrusted comment: signify secret key\nRWRCSwAAAAA8Vn2Lk9Xs4Tq7Wd1Zf6Hb3Mc8Jg5Ne0Ra2Up7Yi4Ko9Ls1Dw6Ex3Fv8Gt5Hu2Ij7Kk0L\n"}`,
			[]string{"RWRCSwAAAAA8Vn2Lk9Xs"}, nil},
		{"minisign public key and signature stay", "untrusted comment: minisign public key 8A3C4B2D1E0F9A7B\nRWQ8Vn2Lk9Xs4Tq7Wd1Zf6Hb3Mc8Jg5Ne0Ra2Up7Yi4Ko9Ls1Dw6Ex\nuntrusted comment: signature from minisign secret key\nRUQ8Vn2Lk9Xs4Tq7Wd1Zf6Hb3Mc8Jg5Ne0Ra2Up7Yi4Ko9Ls1Dw6Ex3Fv8Gt5Hu2Ij7Kk0Ll9Mm8Nn7Oo6Pp5Qq4",
			nil, []string{"RWQ8Vn2Lk9Xs4Tq7Wd1Zf6Hb3Mc8Jg5Ne0Ra2Up7Yi4Ko9Ls1Dw6Ex", "RUQ8Vn2Lk9Xs4Tq7Wd1Zf6Hb3Mc8Jg5Ne0Ra2Up7Yi4Ko9Ls1Dw6Ex3Fv8Gt5Hu2Ij7Kk0Ll9Mm8Nn7Oo6Pp5Qq4"}},
		{"basic auth header", "curl -H 'Authorization: Basic ZGVwbG95Ym90OnE4Wm0ydlI1dEsxeA==' https://ci.example.com", []string{"ZGVwbG95Ym90OnE4Wm0ydlI1dEsxeA=="}, []string{"https://ci.example.com"}},
		{"docker config auth in prose", "the registry login is stored as ZGVwbG95Ym90OnE4Wm0ydlI1dEsxeA== in config.json", []string{"ZGVwbG95Ym90OnE4Wm0ydlI1dEsxeA=="}, []string{"config.json"}},
		{"base64 of text stays", "the payload was SGVsbG8sIHdvcmxkISBUaGlzIGlzIGEgdGVzdC4= in the log", nil, []string{"SGVsbG8sIHdvcmxkISBUaGlzIGlzIGEgdGVzdC4="}},
		{"base64 of a URL stays", "redirect aHR0cHM6Ly9leGFtcGxlLmNvbS9jYWxsYmFjaw== then", nil, []string{"aHR0cHM6Ly9leGFtcGxlLmNvbS9jYWxsYmFjaw=="}},
		{"value named from afar in a sentence", "I found Zq8Wm3Lx5Tn1Vb7Kp2Rd9Hs4Jf6Gc0Ye in the logs; it looks like the Plivo auth token.", []string{"Zq8Wm3Lx5Tn1Vb7Kp2Rd"}, []string{"Plivo auth token"}},
		{"value in an aside", "The Mailjet secret key (9f3c2b7a1e4d8f6c0b5a9e3d7c1f2a8b) was committed by mistake.", []string{"9f3c2b7a1e4d8f6c0b5a"}, nil},
		{"value quoted before its name", "Use `Zq8Wm3Lx5Tn1Vb7Kp2Rd9Hs4Jf6Gc0Ye` as the Pusher app secret.", []string{"Zq8Wm3Lx5Tn1Vb7Kp2Rd"}, nil},
		{"refresh token after its name", "I used the refresh token 1//0gXk3Lm9Qr2Tv5Wx8Yz1Ab4Cd7Ef0Gh3Ij6Kl9Mn2Op5 to get a new one", []string{"1//0gXk3Lm9Qr2Tv5Wx8"}, nil},
		{"dotted token after its name", "join with the bootstrap token 7x2k9q.m4v8r1c6t3p0w5za, it expires in a day", []string{"m4v8r1c6t3p0w5za"}, []string{"expires in a day"}},
		{"dotted token assigned", "KUBEADM_TOKEN=7x2k9q.m4v8r1c6t3p0w5za", []string{"m4v8r1c6t3p0w5za"}, nil},
		{"tagged hex in prose", "the license key 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2fNRAL goes in newrelic.yml", []string{"9a8b7c6d5e4f3a2b1c0d"}, []string{"newrelic.yml"}},
		{"app id and secret after an arrow", "new credentials -> Xk3Lm9.Qr2Tv5:Wx8Yz1Ab4Cd7Ef0Gh3Ij6Kl9Mn2Op5Qr8St1Uv4Wx7", []string{"Xk3Lm9.Qr2Tv5", "Wx8Yz1Ab4Cd7Ef0Gh3Ij"}, nil},
		{"app certificate is a shared secret", "AGORA_APP_CERTIFICATE=5e1d8555f96178cb9dd9f6392cc09b0e\nTLS_CERT=/etc/ssl/certs/app.pem", []string{"5e1d8555f96178cb9dd9"}, []string{"/etc/ssl/certs/app.pem"}},
		{"app certificate in JSON", `{"app": {"certificate": "q8Zm2vR5tK1xW7nB3cL9pD4fG6hJ0sY2"}}`, []string{"q8Zm2vR5tK1xW7nB3cL9"}, nil},
		{"private half of a key pair", "MJ_APIKEY_PUBLIC=3c5b240617a27433082b7b6a35af1af5\nMJ_APIKEY_PRIVATE=9b1a7c343890fae671c3dd121f95116e", []string{"9b1a7c343890fae671c3"}, []string{"3c5b240617a27433082b7b6a35af1af5"}},
		{"hex starting with a letter under a secret's name", "MAILJET_SECRET_KEY=ae582007c208bcafda03ef177de5e0a9", []string{"ae582007c208bcafda03"}, nil},
		{"certificate stays", "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
			nil, []string{"MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ"}},
		{"public key stays", "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=\n-----END PUBLIC KEY-----",
			nil, []string{"MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE="}},
		{"header alone in code stays", `const hdr = "-----BEGIN RSA PRIVATE KEY-----"`, nil, []string{"-----BEGIN RSA PRIVATE KEY-----"}},
		{"putty private lines and MAC", ppk, []string{"AAAAIBz9Kq3mVb7Xc2Lw8", "5f1e0b7c3a9d2e8f4b6a"}, []string{"Private-Lines: 1", "AAAAC3NzaC1lZDI1NTE5AAAAIOp0Xb4k1"}},
		{"wireguard in prose", "the private key for wg0 is yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk= and the peer's is public",
			[]string{"yAnz5TF+lXXJte14tji3"}, nil},
		{"wireguard config", "[Interface]\nPrivateKey = yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=\nPublicKey = xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=",
			[]string{"yAnz5TF+lXXJte14tji3"}, []string{"xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg="}},
		{"age key in JSON after \\n", `{"identity": "# created: 2024-01-01\n# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\nAGE-SECRET-KEY-1QQPDL2U6KZ7VE9RRQYQFZDNMEX0A3ZMN8H2QW7V8XJ4S5YQ3F6RZSL8V4Q"}`,
			[]string{"AGE-SECRET-KEY-1QQPDL2U6KZ7VE9"}, []string{"age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"}},
		{"vendor key in prose", "the Deepgram key is 3f9c2b7a1e4d8f6c0b5a9e3d7c1f2a8b6e4d0c9f, rotate it", []string{"3f9c2b7a1e4d8f6c0b5a"}, []string{"rotate it"}},
		{"product name and colon", "AssemblyAI: 8e3f1c9a7b2d4e6f0a1b3c5d7e9f2a4b", []string{"8e3f1c9a7b2d4e6f0a1b"}, nil},
		{"license with a suffix", "our New Relic license 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2fNRAL goes in the agent", []string{"9a8b7c6d5e4f3a2b1c0d"}, nil},
		{"value then its name", "3f9c2b7a1e4d8f6c0b5a9e3d7c1f2a8b6e4d0c9f is our Deepgram API key", []string{"3f9c2b7a1e4d8f6c0b5a"}, nil},
		{"fcm server key with a colon", "FCM_SERVER_KEY = AAAAq7Zk9Lm:APA91bHx3Kq8Rz2Wm5Tn7Yp1Vb4Ld6Fs9Gh0Jk2Lm3Nq5Rs7Tv9Wx1Yz3Ab5Cd7Ef9Gh1Ij3Kl5Mn7Op9Qr",
			[]string{"AAAAq7Zk9Lm", "APA91bHx3Kq8Rz2Wm5Tn"}, []string{"FCM_SERVER_KEY = "}},
		{"refresh token with slashes", "GOOGLE_REFRESH_TOKEN = 1//0gXk3Lm9Qr2Tv5Wx8Yz1Ab4Cd7Ef0Gh3Ij6Kl9Mn2Op5Qr8St1Uv4Wx7Yz",
			[]string{"1//0gXk3Lm9Qr2Tv5Wx8"}, nil},
		{"cloudflare token under cf_api", `{"cf_api": "Xk3Lm9Qr2Tv5Wx8Yz1Ab4Cd7Ef0Gh3Ij6Kl9Mn2", "zone": "example.com"}`,
			[]string{"Xk3Lm9Qr2Tv5Wx8Yz1Ab"}, []string{"example.com"}},
		{"gcp key id in prose", "service account ci@proj.iam.gserviceaccount.com has private key id 4bf92f3577b34da6a3ce929d0e0e47364bf92f35",
			[]string{"4bf92f3577b34da6a3ce"}, []string{"ci@proj.iam.gserviceaccount.com"}},
		{"redis URL percent-encoded in a query", "https://app.example.com/setup?conn=redis%3A%2F%2Fdefault%3Ahunter2hunter2%40cache.internal%3A6379&x=1",
			[]string{"hunter2hunter2"}, []string{"cache.internal", "&x=1"}},
		{"mongodb+srv in a query, JSON-escaped &", `{"url": "https://x.example.com/cb?a=1\u0026uri=mongodb%2Bsrv%3A%2F%2Fadmin%3AQx7Lm2Pz9Kw4%40cluster0.ab1cd.mongodb.net%2Fdb"}`,
			[]string{"Qx7Lm2Pz9Kw4"}, []string{"cluster0.ab1cd.mongodb.net"}},
		{"jdbc password in a query", "https://x.example.com/?dsn=jdbc%3Apostgresql%3A%2F%2Fdb%3A5432%2Fapp%3Fuser%3Dapp%26password%3DZr8Kq2Lm5Wn9",
			[]string{"Zr8Kq2Lm5Wn9"}, nil},
		{"azure account key in a query", "https://x.example.com/?cs=DefaultEndpointsProtocol%3Dhttps%3BAccountName%3Dacct%3BAccountKey%3DQ3r8ZbT1xW7mN2pL4kJ9hG6fD5sA1qZx%2BabCdEf%3D%3D%3BEndpointSuffix%3Dcore.windows.net",
			[]string{"Q3r8ZbT1xW7mN2pL4kJ9"}, []string{"AccountName%3Dacct"}},
		{"symbols split a secret key into short pieces", "SECRET_KEY = 'k3#x!2m@q9(w_z=8&r$7^p*t-5+v)b4%n6j!h1@y0#c2$e8'",
			[]string{"k3#x!2m@q9(w_z=8&r$7^p*t-5+v)b4", "y0#c2$e8"}, []string{"SECRET_KEY = "}},
		{"symbol secret in JSON", `{"secret_key": "p*t-5+v)b4%n6j!h1@y0#c2$e8k3#x!2m@q9(w_z=8&r$7^", "debug": true}`,
			[]string{"p*t-5+v)b4", "c2$e8k3#x!2m"}, []string{`"debug": true`}},
		{"symbol secret exported", `export APP_SECRET="v)b4%n6j!h1@y0#c2$e8k3#x!2m@q9(w_z=8&r"`, []string{"v)b4%n6j!h1@y0"}, []string{"export APP_SECRET="}},
		{"user:password under a credential's name", "BASIC_AUTH=deploy:Qz7!kR2m\nDB_CREDENTIALS: 'svc_app:h7Km#2pQ'", []string{"Qz7!kR2m", "h7Km#2pQ"}, []string{"BASIC_AUTH=", "DB_CREDENTIALS: "}},
		{"user:password in JSON", `{"auth": "admin:W9x$Lq4t", "mode": "basic"}`, []string{"W9x$Lq4t"}, []string{`"mode": "basic"`}},
		{"symbol secret in prose", "The Django secret key is `k3#x!2m@q9(w_z=8&r$7^p*t-5+v)b4%n6j` and it leaked.", []string{"k3#x!2m@q9(w_z", "v)b4%n6j"}, []string{"it leaked."}},
		{"login in prose", "the staging credentials are deploy:Qz7!kR2m for now", []string{"Qz7!kR2m"}, []string{"for now"}},
		{"hex secret in prose", "Rails secret_key_base: 9f3c2b7a1e4d8f6c0b5a9e3d7c1f2a8b6e4d0c9f9f3c2b7a1e4d8f6c0b5a9e3d", []string{"9f3c2b7a1e4d8f6c0b5a"}, nil},
		{"product's value with no credential word", "I set up Deepgram and it gave me 3f9c2b7a1e4d8f6c0b5a9e3d7c1f2a8b6e4d0c9f for the project", []string{"3f9c2b7a1e4d8f6c0b5a"}, []string{"for the project"}},
		{"product's mixed-case value", "Copied from the Clarifai portal: Zq8Wm3Lx5Tn1Vb7Kp2Rd9Hs4Jf6Gc0Ye, works now", []string{"Zq8Wm3Lx5Tn1Vb7Kp2Rd"}, nil},
		{"short password after its word in prose", "the admin password is Qz7!kR2m, please rotate it", []string{"Qz7!kR2m"}, []string{"please rotate it"}},
		{"login after auth in prose", "basic auth for the registry: deploy:h7Km#2pQx", []string{"h7Km#2pQx"}, nil},
		{"symbol key after its word in prose", "our Django key: k3#x!2m@q9(w_z=8&r$7^p*t-5+v)b4", []string{"k3#x!2m@q9(w_z"}, nil},
		{"ado.net password in a query", "https://x.example.com/?c=Server%3Dtcp%3Adb%2C1433%3BUser%20ID%3Dsa%3BPassword%3DVb7Nm2Qx9Lk4%3B",
			[]string{"Vb7Nm2Qx9Lk4"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := New().String(tt.in)
			for _, g := range tt.gone {
				if strings.Contains(got, g) {
					t.Errorf("%q survived: %s", g, got)
				}
			}
			for _, k := range tt.keep {
				if !strings.Contains(got, k) {
					t.Errorf("%q lost: %s", k, got)
				}
			}
			if again, _ := New().String(got); again != got {
				t.Errorf("not idempotent:\n%s\n%s", got, again)
			}
			if want, _ := sequential(New(), tt.in); want != got {
				t.Errorf("sequential %q, pass %q", want, got)
			}
		})
	}
}

// TestIdentifiersStay: identifiers, and identifier-valued assignments in
// code, are never redacted.
func TestIdentifiersStay(t *testing.T) {
	for _, s := range []string{
		"remember HELDOUT-END-FACT-ZQX7781-PLUTONIUM-KUMQUAT for later",
		"the ticket key is HELDOUT-END-NOTE-QRV2290-TITANIUM-MANGO",
		"pod api-server-7f8d9c6b5-x2k4p restarted",
		"password: password,\n  token = token\n  apiKey: this.apiKey,\n  password=os.Getenv(\"PASSWORD\")",
		"const { password: userPassword, secret: clientSecret } = opts",
		"commit 4bf92f3577b34da6a3ce929d0e0e47364bf92f35 fixed the token refresh",
		"4bf92f3577b34da6a3ce929d0e0e47364bf92f35 Fix token refresh",
		"request id 7f3a9b2c41d84e2f9a0b1c2d3e4f5a6b for the api key rotation",
		"trace_id=4bf92f3577b34da6a3ce929d0e0e4736 user 123e4567-e89b-42d3-a456-426614174000",
		"Change-Id: I7958b02529131241fd0a5bde1d8d9953f63f09e8",
		`{"certificate": "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ"}`,
		"see chunk.7x2k9qm4v8r1c6t3p0w5 and main.3f9c2b7a1e4d8f6c.js for the token refresh",
		"go.opentelemetry.io/otel/trace v1.24.0 h1:CsKnnL4dUAr/0llH9FKuc698T9bw7pYx1C9xXp7jbu4= // auth token tracing",
		"\tconst buildID = \"e22bc7df661c7d51479d6a6db1c021d5c18f0ec4\" // the token bucket and the secret store",
		"request id 7f3a9b2c41d84e2f9a0b1c2d3e4f5a6b was logged; the api key rotation ran after it",
		"ab72c77b97cb5fe9a382d9fe81ffdbed Fix token refresh in the secret store",
		"Expected: 3f9c2b7a1e4d8f6c0b5a9e3d7c1f2a8b6e4d0c9f",
		"https://example.com/search?q=api%20key%20rotation%20plan&page=2",
		`{"dependencies": {"jsonwebtoken": "^9.0.2", "csrf-token": "~1.2.0", "keytar": ">=7.0 <8"}}`,
		"api_key = \"<your-api-key>\"\nSECRET_KEY = 'changeme'\nTOKEN=${TOKEN}\ntoken: ${{ secrets.DEPLOY_TOKEN }}",
		"password = var.db_password\napi_key := os.Getenv(\"API_KEY\")\nSECRET_KEY = env('DJANGO_SECRET_KEY', default='')",
		`{"secret_key": "{{ vault_secret_key }}", "password": "%(DB_PASSWORD)s", "token": "$GITHUB_TOKEN", "api_key": "your-api-key-here"}`,
		`SECRET_KEY = os.environ["SECRET_KEY"]` + "\n" + `{"password": "********", "auth": "basic", "credentials": "include"}`,
		`integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC"`,
		"AUTH_MODE=user:password\nauth: required",
		"the password is required and must be 12 characters; password hashing uses bcrypt2 with cost 12",
		"the primary key 4bf92f3577b34da6a3ce929d0e0e4736 and the cache key abc!123#def$456 stay, as does the public key Zq8Wm3Lx5Tn1Vb7Kp2Rd9Hs4Jf6Gc0Ye",
		"press the key combo Ctrl+Alt+Del3 or log in via OAuth2 with auth_code=7f3a9b2c",
		"Merged in GitHub as commit 4bf92f3577b34da6a3ce929d0e0e47364bf92f35 yesterday",
		"The Sentry trace 7f3a9b2c41d84e2f9a0b1c2d3e4f5a6b shows the slow query",
		"Docker pulled the image at sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 for Alpine",
		"the secret santa list is at https://example.com/list and the token bucket holds 4bf92f3577b3 tokens",
		"password reset for user alice@example.com at 2024-01-01T10:00:00Z; token refresh ran at 10:00:05",
	} {
		if got, _ := New().String(s); got != s {
			t.Errorf("changed: %q\n -> %q", s, got)
		}
	}
}

// FuzzPercentDecode: the offsets percentDecode gives map every decoded
// stretch back to the bytes that decode to exactly it, so an edit on
// decoded text covers whole escapes in the original.
func FuzzPercentDecode(f *testing.F) {
	for _, s := range []string{"a%3Ab", "redis%3A%2F%2Fu%3Ap%40h", `x\u0026y=1`, `x\\u0026y`, "a+b%2", "%%41%4", "%e2%82%ac"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dec, pos := percentDecode(s)
		if len(pos) != len(dec)+1 || pos[0] != 0 && len(dec) > 0 || pos[len(dec)] != len(s) {
			t.Fatalf("%q: pos %v for %q", s, pos, dec)
		}
		for i := 0; i < len(dec); i++ {
			if pos[i] >= pos[i+1] {
				t.Fatalf("%q: pos not increasing at %d: %v", s, i, pos)
			}
			if d, _ := percentDecode(s[pos[i]:pos[i+1]]); d != dec[i:i+1] {
				t.Fatalf("%q: byte %d is %q, its source %q decodes to %q", s, i, dec[i:i+1], s[pos[i]:pos[i+1]], d)
			}
		}
	})
}

// FuzzNamedValues: the values read after a credential's name, by
// assignment (namedValues) or in prose (namedInProse at each marked
// word), lie inside the text, start after their name's operator or
// word, and never hold a line break.
func FuzzNamedValues(f *testing.F) {
	for _, s := range []string{"SECRET_KEY = 'k3#x!2m@q9(w_z=8&r$7^p*t-5+v)b4%n6j'", `{"auth": "admin:W9x$Lq4t"}`, `x := \"a\"`,
		"the secret key is `k3#x!2m@q9(w_z=8&r$7^p*t`.", "token=", "password: \"", "PASSWORD=[REDACTED]&abc!1", "a=&b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var fd found
		namedValues(s, &fd)
		for _, m := range markIndex(s) {
			if e, ok := namedInProse(s, m); ok {
				fd.add(e)
			}
		}
		for _, e := range fd.es {
			if e.start <= 0 || e.end > len(s) || e.start >= e.end {
				t.Fatalf("%q: edit [%d, %d) out of the text", s, e.start, e.end)
			}
			if strings.ContainsAny(s[e.start:e.end], "\n\r") {
				t.Fatalf("%q: value %q holds a line break", s, s[e.start:e.end])
			}
		}
	})
}
