package heldoutcorpus

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// block joins header, body lines and footer, one line each; the body
// lines are the secrets.
func block(head string, body []string, foot string) Value {
	return Value{Text: head + "\n" + strings.Join(body, "\n") + "\n" + foot, Secrets: body}
}

// pemBody is n bytes of base64 in 64-byte lines, the first starting
// with the DER prefix of its key type; the last line is kept at least
// Window long so that every line is a checkable secret.
func pemBody(r *rand.Rand, der string, n int) []string {
	ls := lines(der+b64Of(r, n), 64)
	if k := len(ls); k > 1 && len(ls[k-1]) < 2*Window {
		ls = ls[:k-1]
	}
	return ls
}

func openvpnStatic(r *rand.Rand) Value {
	body := make([]string, 16)
	for i := range body {
		body[i] = rs(r, lowhex, 32)
	}
	v := block("#\n# 2048 bit OpenVPN static key\n#\n-----BEGIN OpenVPN Static key V1-----", body, "-----END OpenVPN Static key V1-----")
	return v
}

func openvpnTLSCryptV2(r *rand.Rand) Value {
	return block("-----BEGIN OpenVPN tls-crypt-v2 client key-----", pemBody(r, "", 300+r.IntN(40)), "-----END OpenVPN tls-crypt-v2 client key-----")
}

// puttyKey is a PuTTY .ppk file, version 2 or 3, of one of three key
// types; its private lines are the secret.
func puttyKey(version int) func(*rand.Rand) Value {
	return func(r *rand.Rand) Value {
		typ := pick(r, "ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256")
		var pub, priv []string
		switch typ {
		case "ssh-ed25519":
			pub = []string{"AAAAC3NzaC1lZDI1NTE5AAAAI" + rs(r, b64, 43)}
			priv = []string{"AAAAI" + rs(r, b64, 43)}
		case "ssh-rsa":
			pub = lines("AAAAB3NzaC1yc2EAAAADAQABAAABAQ"+b64Of(r, 256), 64)
			priv = pemBody(r, "AAABAQ", 640)
		default:
			pub = lines("AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB"+b64Of(r, 64), 64)
			priv = []string{"AAAAIQ" + rs(r, b64, 42)}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "PuTTY-User-Key-File-%d: %s\n", version, typ)
		enc := pick(r, "none", "aes256-cbc")
		comment := map[string]string{"ssh-ed25519": "eddsa", "ssh-rsa": "rsa", "ecdsa-sha2-nistp256": "ecdsa"}[typ]
		fmt.Fprintf(&b, "Encryption: %s\nComment: %s-key-2026%02d%02d\n", enc, comment, 1+r.IntN(12), 1+r.IntN(28))
		if version == 3 && enc != "none" {
			fmt.Fprintf(&b, "Key-Derivation: Argon2id\nArgon2-Memory: 8192\nArgon2-Passes: %d\nArgon2-Parallelism: 1\nArgon2-Salt: %s\n", 8+r.IntN(20), rs(r, lowhex, 32))
		}
		fmt.Fprintf(&b, "Public-Lines: %d\n%s\nPrivate-Lines: %d\n%s\n", len(pub), strings.Join(pub, "\n"), len(priv), strings.Join(priv, "\n"))
		mac := 40
		if version == 3 {
			mac = 64
		}
		fmt.Fprintf(&b, "Private-MAC: %s", rs(r, lowhex, mac))
		return Value{Text: b.String(), Secrets: priv}
	}
}

// wgKey is a Curve25519 private key as `wg genkey` prints it: 32 bytes,
// clamped, in base64 (44 bytes ending '=').
func wgKey(r *rand.Rand) string {
	k := randBytes(r, 32)
	k[0] &= 248
	k[31] = k[31]&127 | 64
	return base64.StdEncoding.EncodeToString(k)
}

func wireguard(r *rand.Rand) Value {
	k := wgKey(r)
	text := fmt.Sprintf("[Interface]\nPrivateKey = %s\nAddress = 10.%d.0.%d/24\nDNS = 1.1.1.1\nListenPort = 51820\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 0.0.0.0/0, ::/0\nEndpoint = vpn%d.example.net:51820\nPersistentKeepalive = 25",
		k, r.IntN(250), 2+r.IntN(250), wgKey(r), r.IntN(9))
	return Value{Text: text, Secrets: []string{k}, Inline: k}
}

func ageKeyFile(r *rand.Rand) Value {
	k := "AGE-SECRET-KEY-1" + rs(r, bech32U, 58)
	text := fmt.Sprintf("# created: 2026-%02d-%02dT%02d:%02d:%02d+01:00\n# public key: age1%s\n%s", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), rs(r, bech32L, 58), k)
	return Value{Text: text, Secrets: []string{k}, Inline: k}
}

func pgpPrivate(r *rand.Rand) Value {
	body := pemBody(r, "lQVYBG"+rs(r, b64, 6)+"AQgA", 900+r.IntN(400))
	v := block("-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: "+pick(r, "GPGTools - https://gpgtools.org", "User-ID: Release Signing <release@example.org>", "exported with gpg --export-secret-keys")+"\n", body,
		"="+rs(r, b64, 4)+"\n-----END PGP PRIVATE KEY BLOCK-----")
	return v
}

func labelled(label, der string, n int) func(*rand.Rand) Value {
	return func(r *rand.Rand) Value {
		return block("-----BEGIN "+label+"-----", pemBody(r, der, n+r.IntN(n/4+1)), "-----END "+label+"-----")
	}
}

func nebula(r *rand.Rand) Value {
	k := b64Of(r, 32)
	return Value{Text: "-----BEGIN NEBULA X25519 PRIVATE KEY-----\n" + k + "\n-----END NEBULA X25519 PRIVATE KEY-----", Secrets: []string{k}, Inline: k}
}

func ssh2Encrypted(r *rand.Rand) Value {
	body := lines("P2/56wAAA"+b64Of(r, 600+r.IntN(200)), 70)
	if k := len(body); len(body[k-1]) < 2*Window {
		body = body[:k-1]
	}
	return block("---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"rsa-key-2026"+rs(r, digits, 4)+"\"", body, "---- END SSH2 ENCRYPTED PRIVATE KEY ----")
}

// minisign and signify secret keys: one comment line, one base64 line.
func minisign(r *rand.Rand) Value {
	k := "RWRTY0Iy" + rs(r, b64, 203) + "="
	return Value{Text: "untrusted comment: minisign encrypted secret key\n" + k, Secrets: []string{k}, Inline: k}
}

func signify(r *rand.Rand) Value {
	k := "RWRCSwAAAA" + rs(r, b64, 129) + "="
	return Value{Text: "untrusted comment: signify secret key\n" + k, Secrets: []string{k}, Inline: k}
}
