// Package freshcorpus is a second held-out benchmark for the secret
// redactor, written without reading the detector and without the formats
// of internal/secretcorpus, internal/heldoutcorpus or any gitleaks rule.
//
// It has two halves, each drawn from a seed with math/rand/v2:
//
//   - Cases: credentials of 50 published formats (cloud consoles, CI,
//     payment, messaging, databases, wallets, identity providers, and the
//     files where credentials live: .netrc, .npmrc, .pypirc,
//     git-credentials, htpasswd, keystores, Terraform state, Ansible vault,
//     keytabs, wpa_supplicant.conf, ipsec.secrets), in prose, NAME = value,
//     JSON and a URL query value (percent-, plus-, lower-case- and
//     double-encoded), plus the format's own file where it has one.
//   - Clean: identifiers and public material that look like secrets
//     (digests, integrity hashes, SHAs, UUIDs as ids, public keys and
//     certificates, data URIs, trace ids, ARNs, placeholders, references
//     to secrets by name), grouped by category. None may be redacted.
//
// Judgement calls, stated once: a BIP-39 mnemonic, a password hash in an
// htpasswd line and an Ansible vault blob (PBKDF2, crackable offline) are
// secrets; a UUID under a name that says token or secret is a secret;
// SOPS ENC[...] values (AES-GCM under a KMS key), published crypto test
// vectors, public keys, certificates and SSH certificates are not.
//
// The corpus is frozen once measured: write a new package rather than
// edit this one, so that figures stay comparable across commits.
package freshcorpus

// Seeds are the seeds every figure is measured over.
var Seeds = []uint64{101, 102, 103, 104, 105, 106, 107, 108, 109, 110}

// Window is the length of the runs of a secret that must not survive.
const Window = 12
