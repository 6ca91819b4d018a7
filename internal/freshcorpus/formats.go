package freshcorpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Kind groups formats by where they come from.
type Kind string

const (
	Cloud     Kind = "cloud"
	CI        Kind = "ci"
	Payment   Kind = "payment"
	Messaging Kind = "messaging"
	Database  Kind = "database"
	Wallet    Kind = "wallet"
	Identity  Kind = "identity"
	File      Kind = "config-file"
	Network   Kind = "network"
	Blob      Kind = "encrypted-blob"
)

// Kinds lists every kind, in report order.
var Kinds = []Kind{Cloud, CI, Payment, Messaging, Database, Wallet, Identity, File, Network, Blob}

// Format is one published credential shape.
type Format struct {
	Name, Vendor string
	Kind         Kind
	// Words name the credential in prose; Names are variable names; Keys
	// are JSON keys and query parameters.
	Words, Names, Keys []string
	Gen                func(*rand.Rand) string
	// Native writes the value in the file where it lives; nil if none.
	Native func(*rand.Rand, string) string
}

// secrets splits a value into the parts that must disappear: the lines
// of a multi-line blob other than its header, or the value itself.
func secrets(v string) []string {
	if !strings.Contains(v, "\n") {
		return []string{v}
	}
	var out []string
	for _, l := range strings.Split(v, "\n") {
		if l != "" && !strings.HasPrefix(l, "$ANSIBLE_VAULT") {
			out = append(out, l)
		}
	}
	return out
}

func f(name, vendor string, kind Kind, words, names, keys string, gen func(*rand.Rand) string, native func(*rand.Rand, string) string) Format {
	return Format{Name: name, Vendor: vendor, Kind: kind, Words: split(words), Names: split(names), Keys: split(keys), Gen: gen, Native: native}
}

func tmpl(s string) func(*rand.Rand, string) string {
	return func(_ *rand.Rand, v string) string { return fmt.Sprintf(s, v) }
}

// Formats returns the corpus' formats. None is in internal/secretcorpus,
// internal/heldoutcorpus or named by a gitleaks rule.
func Formats() []Format {
	return []Format{
		// Wallets.
		f("bip39-mnemonic", "BIP-39", Wallet, "wallet seed phrase|recovery phrase for the Ledger|MetaMask secret recovery phrase", "WALLET_MNEMONIC|SEED_PHRASE|mnemonic", "mnemonic|seedPhrase|recovery_phrase", mnemonic, nil),
		f("ethereum-private-key", "Ethereum", Wallet, "Ethereum private key|deployer wallet private key|hot wallet key", "DEPLOYER_PRIVATE_KEY|ETH_PRIVATE_KEY|walletPrivateKey", "privateKey|deployer_key|signer", prefixed("0x", lowhex, 64), nil),
		f("bitcoin-wif", "Bitcoin", Wallet, "Bitcoin WIF key|WIF private key for the cold wallet|bitcoind dumpprivkey output", "BTC_WIF|BITCOIN_PRIVKEY|wifKey", "wif|privkey|btc_key", wif, tmpl("$ bitcoin-cli dumpprivkey bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq\n%s")),
		f("bip32-xprv", "BIP-32", Wallet, "extended private key|xprv for the treasury wallet|BIP32 root key", "XPRV|HD_ROOT_KEY|extendedPrivateKey", "xprv|rootKey|hd_key", xprv, nil),
		f("monero-spend-key", "Monero", Wallet, "Monero private spend key|XMR spend key|monero wallet spend key", "MONERO_SPEND_KEY|XMR_SPENDKEY|spendKey", "spend_key|spendKey|xmr_spend", str(lowhex, 64), nil),

		// Identity providers.
		f("hs256-signing-secret", "JWT HS256", Identity, "HS256 secret for the gateway|JWT signing secret|HMAC key the tokens are signed with", "JWT_SECRET|TOKEN_SIGNING_KEY|hs256Secret", "hs256|signing|hmac", str(alnum, 64), nil),
		f("keycloak-client-secret", "Keycloak", Identity, "Keycloak client secret|OIDC client secret for the realm|confidential client secret in Keycloak", "KEYCLOAK_CLIENT_SECRET|OIDC_CLIENT_SECRET|keycloakSecret", "client_secret|clientSecret|credentials", str(alnum, 32), nil),
		f("auth0-client-secret", "Auth0", Identity, "Auth0 client secret|Auth0 application secret", "AUTH0_CLIENT_SECRET|AUTH0_SECRET|auth0ClientSecret", "auth0_secret|clientSecret|client_secret", str(urlb64, 64), nil),
		f("ldap-bind-password", "OpenLDAP", Identity, "LDAP bind password|bind DN password for cn=admin|slapd rootpw", "LDAP_BIND_PASSWORD|LDAP_BINDPW|bindPassword", "bindCredential|bind_pw|ldapPassword", password, tmpl("binddn cn=admin,dc=corp,dc=example\nbindpw %s")),
		f("kubeconfig-static-token", "Kubernetes", Identity, "kubeconfig token|static token for the cluster admin|token from the kubeconfig", "KUBE_TOKEN|K8S_BEARER_TOKEN|kubeToken", "token|bearer|kube_token", str(alnum, 32), tmpl("users:\n- name: admin\n  user:\n    token: %s")),

		// Files where credentials live.
		f("netrc-password", ".netrc", File, "netrc password|password in ~/.netrc|machine password from netrc", "NETRC_PASSWORD|HEROKU_API_PASSWORD|netrcPassword", "netrc_password|machinePassword|pw", password, tmpl("machine api.internal.example.com\n  login deploy\n  password %s")),
		f("npmrc-legacy-authtoken", "npm", File, "npm auth token|_authToken from .npmrc|registry token for npm", "NPM_AUTH_TOKEN|NODE_AUTH_TOKEN|npmAuthToken", "_authToken|npmToken|authToken", uuid, tmpl("//registry.npmjs.org/:_authToken=%s")),
		f("pypirc-password", "PyPI-compatible index", File, "pypirc password for the private index|devpi password|Nexus PyPI password", "TWINE_PASSWORD|PYPI_INDEX_PASSWORD|pypiPassword", "password|twinePassword|index_pw", password, tmpl("[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.corp.example/simple/\nusername = ci\npassword = %s")),
		f("gitea-token-git-credentials", "Gitea", File, "Gitea access token|token in git-credentials|Forgejo token", "GITEA_TOKEN|FORGEJO_TOKEN|giteaToken", "gitea_token|access_token|forgejo", str(lowhex, 40), tmpl("$ cat ~/.git-credentials\nhttps://dana:%s@gitea.corp.example")),
		f("htpasswd-hash", "Apache htpasswd", File, "htpasswd entry|password hash for the admin user|basic-auth hash", "HTPASSWD_ENTRY|TRAEFIK_BASIC_AUTH_HASH|htpasswdHash", "htpasswd|users|hash", func(r *rand.Rand) string { return pick(r, bcryptHash(r), apr1Hash(r)) }, tmpl("admin:%s")),
		f("java-keystore-password", "Java keystore", File, "keystore password|JKS password|truststore password for the broker", "KEYSTORE_PASSWORD|JAVAX_NET_SSL_KEYSTOREPASSWORD|keyStorePassword", "keystorePassword|key-store-password|storepass", password, tmpl("server.ssl.key-store=classpath:keystore.p12\nserver.ssl.key-store-password=%s\nserver.ssl.key-alias=tomcat")),
		f("tencentcloud-secret-key", "Tencent Cloud", Cloud, "Tencent Cloud SecretKey|TencentCloud API secret|secret_key in the tfstate", "TENCENTCLOUD_SECRET_KEY|TC_SECRET_KEY|tencentSecretKey", "secret_key|SecretKey|tcSecret", str(alnum, 32),
			func(r *rand.Rand, v string) string {
				return fmt.Sprintf("{\n  \"version\": 4,\n  \"resources\": [{\"type\": \"tencentcloud_cam_user\", \"instances\": [{\"attributes\": {\"secret_id\": \"AKID%s\", \"secret_key\": \"%s\"}}]}]\n}", rs(r, alnum, 32), v)
			}),
		f("ansible-vault-blob", "Ansible", Blob, "Ansible vault blob|vaulted variable|ansible-vault output", "VAULTED_DB_PASSWORD|ANSIBLE_VAULT_BLOB|vaultBlob", "vault|vaulted|ansible_vault", ansibleVault,
			func(_ *rand.Rand, v string) string {
				return "db_password: !vault |\n          " + strings.ReplaceAll(v, "\n", "\n          ")
			}),
		f("sops-data-key", "SOPS", Blob, "SOPS data key|decrypted sops data key|data key from sops --show-master-keys", "SOPS_DATA_KEY|SOPS_DECRYPTED_KEY|sopsDataKey", "data_key|dataKey|sops_key", func(r *rand.Rand) string { return b64Of(r, 32) }, nil),
		f("dpapi-blob", "Windows DPAPI", Blob, "DPAPI blob|ConvertFrom-SecureString output|protected credential blob", "DPAPI_BLOB|SECURE_STRING|securePassword", "dpapi|protected|secureString", dpapi, tmpl("PS> $cred.Password | ConvertFrom-SecureString\n%s")),
		f("kerberos-keytab-key", "Kerberos", Network, "keytab key for HTTP/web01|Kerberos AES256 key|klist -kK key", "KRB5_KEY|KEYTAB_AES256|keytabKey", "keytab|krb_key|aes256", prefixed("0x", lowhex, 64),
			tmpl("$ klist -kK /etc/krb5.keytab\nKeytab name: FILE:/etc/krb5.keytab\nKVNO Principal\n---- ----------------\n   3 HTTP/web01.corp.example@CORP.EXAMPLE (%s)")),
		f("vnc-password-hex", "TightVNC", Network, "VNC password|TightVNC password (obfuscated)|vncpasswd output", "VNC_PASSWORD_HEX|TIGHTVNC_PASSWORD|vncPassword", "vnc_password|Password|vncpw", str(lowhex, 16),
			func(_ *rand.Rand, v string) string {
				parts := make([]string, 0, 8)
				for i := 0; i < 16; i += 2 {
					parts = append(parts, v[i:i+2])
				}
				return "[HKEY_LOCAL_MACHINE\\SOFTWARE\\TightVNC\\Server]\n\"Password\"=hex:" + strings.Join(parts, ",")
			}),
		f("wpa-psk", "wpa_supplicant", Network, "WPA PSK|wifi PSK for the office SSID|wpa_passphrase output", "WPA_PSK|WIFI_PSK|wpaPsk", "psk|wifiPsk|wpa_key", str(lowhex, 64), tmpl("network={\n\tssid=\"office-5g\"\n\tpsk=%s\n}")),
		f("cisco-type7-password", "Cisco IOS", Network, "Cisco type 7 password|enable password 7|line vty password", "CISCO_TYPE7|IOS_ENABLE_PW|ciscoPassword", "type7|enable|vty_password", cisco7, tmpl("username netops privilege 15 password 7 %s")),
		f("ipsec-psk", "strongSwan", Network, "IPsec pre-shared key|strongSwan PSK|site-to-site VPN PSK", "IPSEC_PSK|VPN_PSK|ipsecPsk", "psk|preSharedKey|ike_psk", func(r *rand.Rand) string { return b64Of(r, 24) }, tmpl("# /etc/ipsec.secrets\n203.0.113.10 198.51.100.7 : PSK \"%s\"")),
		f("radius-shared-secret", "FreeRADIUS", Network, "RADIUS shared secret|FreeRADIUS client secret|NAS secret", "RADIUS_SECRET|RADIUS_SHARED_SECRET|radiusSecret", "radius_secret|nasSecret|shared_secret", password, tmpl("client office-ap {\n\tipaddr = 10.0.4.0/24\n\tsecret = %s\n}")),
		f("coturn-static-auth-secret", "coturn", Network, "coturn static-auth-secret|TURN server secret|TURN REST secret", "TURN_SECRET|COTURN_STATIC_AUTH_SECRET|turnSecret", "turn_secret|static-auth-secret|turnSharedSecret", str(lowhex, 32), tmpl("listening-port=3478\nuse-auth-secret\nstatic-auth-secret=%s\nrealm=turn.example.org")),
		f("consul-acl-token", "HashiCorp Consul", Network, "Consul ACL token|Consul bootstrap token|Consul agent token", "CONSUL_HTTP_TOKEN|CONSUL_ACL_TOKEN|consulToken", "consul_token|acl_token|SecretID", uuid, nil),
		f("nomad-secret-id", "HashiCorp Nomad", CI, "Nomad ACL secret ID|Nomad management token|Nomad token", "NOMAD_TOKEN|NOMAD_SECRET_ID|nomadToken", "nomad_token|SecretID|secret_id", uuid, nil),
		f("vault-unseal-key", "HashiCorp Vault", Blob, "Vault unseal key|unseal key 1 of 5|Vault recovery share", "VAULT_UNSEAL_KEY|UNSEAL_KEY_1|unsealKey", "unseal_key|keys_b64|unsealKey", func(r *rand.Rand) string { return b64Of(r, 33) }, tmpl("Unseal Key 1: %s\n\nInitial Root Token: [see the other message]")),
		f("erlang-cookie", "RabbitMQ / Erlang", Database, "Erlang cookie|RabbitMQ erlang cookie|.erlang.cookie", "RABBITMQ_ERLANG_COOKIE|ERLANG_COOKIE|erlangCookie", "erlang_cookie|cookie|erlangCookie", str(upper, 20), nil),
		f("pgpass-password", "PostgreSQL", Database, "password in .pgpass|pgpass entry password|PostgreSQL password for the reporting role", "PGPASSWORD|REPORTING_DB_PASSWORD|pgPassword", "pg_password|dbPassword|password", password, tmpl("db.internal.example:5432:reporting:report_ro:%s")),
		f("mongodb-atlas-private-key", "MongoDB Atlas", Database, "Atlas API private key|MongoDB Atlas programmatic key|Atlas admin API key", "MONGODB_ATLAS_PRIVATE_KEY|ATLAS_PRIVATE_KEY|atlasPrivateKey", "privateKey|atlas_private_key|apiPrivateKey", uuid, nil),
		f("influxdb-token", "InfluxDB", Database, "InfluxDB token|Influx all-access token|InfluxDB operator token", "INFLUX_TOKEN|INFLUXDB_TOKEN|influxToken", "influx_token|token|operatorToken", func(r *rand.Rand) string { return b64Of(r, 64) }, nil),
		f("firebase-database-secret", "Firebase Realtime Database", Database, "Firebase database secret|legacy Firebase secret|RTDB secret", "FIREBASE_DB_SECRET|FIREBASE_SECRET|firebaseSecret", "firebase_secret|databaseSecret|auth", str(alnum, 40), nil),
		f("jupyter-token", "Jupyter", CI, "Jupyter token|notebook server token|JupyterLab login token", "JUPYTER_TOKEN|NOTEBOOK_TOKEN|jupyterToken", "token|jupyter_token|nb_token", str(lowhex, 48), tmpl("    To access the server, open this file in a browser:\n    Or copy and paste one of these URLs:\n        http://127.0.0.1:8888/lab?token=%s")),
		f("airflow-fernet-key", "Apache Airflow", CI, "Airflow fernet key|fernet_key for the metadata DB|Airflow encryption key", "AIRFLOW__CORE__FERNET_KEY|FERNET_KEY|fernetKey", "fernet_key|fernetKey|encryption_key", func(r *rand.Rand) string { return rs(r, urlb64, 43) + "=" }, tmpl("[core]\nexecutor = CeleryExecutor\nfernet_key = %s")),
		f("woodpecker-agent-secret", "Woodpecker CI", CI, "Woodpecker agent secret|CI agent shared secret|Woodpecker server secret", "WOODPECKER_AGENT_SECRET|CI_AGENT_SECRET|agentSecret", "agent_secret|agentSecret|ci_secret", str(lowhex, 64), nil),
		f("harbor-robot-secret", "Harbor", CI, "Harbor robot account secret|robot$ci secret|Harbor registry robot token", "HARBOR_ROBOT_SECRET|HARBOR_PASSWORD|harborSecret", "robot_secret|secret|harborToken", str(alnum, 32), nil),
		f("docker-swarm-join-token", "Docker Swarm", CI, "swarm join token|worker join token|manager join token", "SWARM_JOIN_TOKEN|SWARM_WORKER_TOKEN|swarmToken", "join_token|worker|swarm_token", swarmToken, tmpl("docker swarm join --token %s 10.0.0.5:2377")),

		// Payment.
		f("braintree-private-key", "Braintree", Payment, "Braintree private key|Braintree API private key", "BRAINTREE_PRIVATE_KEY|BT_PRIVATE_KEY|braintreePrivateKey", "private_key|braintreeKey|bt_private", str(lowhex, 32), nil),
		f("adyen-api-key", "Adyen", Payment, "Adyen API key|Adyen web service user key|X-API-Key for Adyen", "ADYEN_API_KEY|ADYEN_KEY|adyenApiKey", "adyen_key|apiKey|x_api_key", adyenKey, nil),
		f("razorpay-key-secret", "Razorpay", Payment, "Razorpay key secret|Razorpay API secret", "RAZORPAY_KEY_SECRET|RAZORPAY_SECRET|razorpaySecret", "key_secret|razorpaySecret|rzp_secret", str(alnum, 24), nil),
		f("paypal-client-secret", "PayPal", Payment, "PayPal client secret|PayPal REST secret|secret for the PayPal app", "PAYPAL_CLIENT_SECRET|PAYPAL_SECRET|paypalSecret", "client_secret|paypal_secret|secret", prefixed("E", urlb64, 79), nil),
		f("authorizenet-transaction-key", "Authorize.Net", Payment, "Authorize.Net transaction key|transaction key for the gateway", "AUTHORIZENET_TRANSACTION_KEY|ANET_TRANSACTION_KEY|transactionKey", "transactionKey|transaction_key|anet_key", str(alnum, 16), nil),

		// Messaging.
		f("line-channel-access-token", "LINE", Messaging, "LINE channel access token|LINE Messaging API token", "LINE_CHANNEL_ACCESS_TOKEN|LINE_TOKEN|lineChannelToken", "channelAccessToken|line_token|channel_token", lineToken, nil),
		f("pushover-app-token", "Pushover", Messaging, "Pushover app token|Pushover API token", "PUSHOVER_APP_TOKEN|PUSHOVER_TOKEN|pushoverToken", "token|pushover_token|app_token", prefixed("a", lowalnum, 29), nil),
		f("ntfy-access-token", "ntfy", Messaging, "ntfy access token|ntfy token for the alerts topic", "NTFY_TOKEN|NTFY_ACCESS_TOKEN|ntfyToken", "ntfy_token|access_token|token", prefixed("tk_", lowalnum, 29), nil),
		f("matrix-access-token", "Matrix (Synapse)", Messaging, "Matrix access token|Synapse access token|Element access token", "MATRIX_ACCESS_TOKEN|SYNAPSE_TOKEN|matrixToken", "access_token|matrix_token|accessToken", matrixToken, nil),
		f("zulip-api-key", "Zulip", Messaging, "Zulip API key|Zulip bot key|key from zuliprc", "ZULIP_API_KEY|ZULIP_KEY|zulipApiKey", "api_key|zulipKey|bot_key", str(alnum, 32), tmpl("[api]\nemail=deploy-bot@zulip.example.com\nkey=%s\nsite=https://zulip.example.com")),
		f("rocketchat-auth-token", "Rocket.Chat", Messaging, "Rocket.Chat auth token|X-Auth-Token for Rocket.Chat|Rocket.Chat personal access token", "ROCKETCHAT_AUTH_TOKEN|RC_TOKEN|rocketChatToken", "authToken|x_auth_token|rc_token", str(urlb64, 43), nil),

		// Cloud consoles.
		f("scaleway-secret-key", "Scaleway", Cloud, "Scaleway secret key|SCW secret key|Scaleway API secret", "SCW_SECRET_KEY|SCALEWAY_SECRET_KEY|scalewaySecretKey", "secret_key|scwSecret|secretKey", uuid, nil),
		f("ovh-application-secret", "OVHcloud", Cloud, "OVH application secret|OVHcloud API secret", "OVH_APPLICATION_SECRET|OVH_APP_SECRET|ovhAppSecret", "application_secret|appSecret|ovh_secret", str(alnum, 32), nil),
		f("ibm-cloud-api-key", "IBM Cloud", Cloud, "IBM Cloud API key|ibmcloud API key|IAM API key for IBM Cloud", "IBMCLOUD_API_KEY|IC_API_KEY|ibmCloudApiKey", "apikey|ibm_api_key|iam_key", str(urlb64, 44), nil),
		f("akamai-client-secret", "Akamai EdgeGrid", Cloud, "Akamai client secret|EdgeGrid client_secret|client secret in .edgerc", "AKAMAI_CLIENT_SECRET|EDGEGRID_CLIENT_SECRET|akamaiClientSecret", "client_secret|edgegridSecret|akamai", func(r *rand.Rand) string { return b64Of(r, 32) },
			func(r *rand.Rand, v string) string {
				return fmt.Sprintf("[default]\nclient_secret = %s\nhost = akab-%s.luna.akamaiapis.net\naccess_token = akab-%s", v, rs(r, lowalnum, 16), rs(r, lowalnum, 16))
			}),
	}
}
