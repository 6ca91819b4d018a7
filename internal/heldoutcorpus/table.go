package heldoutcorpus

import (
	"fmt"
	"math/rand/v2"
)

// Overlap notes: formats kept although something else names them.
const (
	byPrivateKeyRule = "gitleaks' private-key rule names BEGIN ... PRIVATE KEY blocks"
	byAgeRule        = "gitleaks' age-secret-key rule and secretcorpus.Generate name bare age keys; here in age-keygen's file"
	byUnnamedGCP     = "secretcorpus.Unnamed has the key id in a service-account JSON; here beside the e-mail in prose and assignments"
	byUnnamedCF      = "secretcorpus.Unnamed has the token after the word cloudflare; here under cf_api"
)

// formats: the frozen list. Lengths, prefixes and alphabets are the
// vendors' published shapes.
var formats = []format{
	// Armoured key files.
	{name: "openvpn-static-key", vendor: "OpenVPN", kind: Armour, words: split("OpenVPN static key|OpenVPN tls-auth key|ta.key"), path: "/etc/openvpn/ta.key", gen: openvpnStatic},
	{name: "openvpn-tls-crypt-v2", vendor: "OpenVPN", kind: Armour, words: split("OpenVPN tls-crypt-v2 client key|client key for the VPN"), path: "/etc/openvpn/client/tc2.key", gen: openvpnTLSCryptV2},
	{name: "putty-ppk-v3", vendor: "PuTTY", kind: Armour, words: split("PuTTY key|.ppk file|PuTTY private key"), path: `C:\Users\dana\.ssh\deploy.ppk`, gen: puttyKey(3)},
	{name: "putty-ppk-v2", vendor: "PuTTY", kind: Armour, words: split("old PuTTY key|PuTTYgen key file"), path: `C:\keys\jump-host.ppk`, gen: puttyKey(2)},
	{name: "wireguard-private-key", vendor: "WireGuard", kind: Armour, words: split("WireGuard private key|wg0 private key|WireGuard key"), path: "/etc/wireguard/wg0.conf", gen: wireguard},
	{name: "ssh2-encrypted-private-key", vendor: "SSH Communications (RFC 4716 style)", kind: Armour, words: split("SSH2 private key|Tectia key"), path: "/home/ops/.ssh2/id_rsa_2048_a", gen: ssh2Encrypted},
	{name: "minisign-secret-key", vendor: "minisign", kind: Armour, words: split("minisign secret key|release signing key"), path: "~/.minisign/minisign.key", gen: minisign},
	{name: "signify-secret-key", vendor: "OpenBSD signify", kind: Armour, words: split("signify secret key|signify key"), path: "/etc/signify/release.sec", gen: signify},
	{name: "age-key-file", vendor: "age", kind: Armour, overlap: byAgeRule, words: split("age key|age identity file|sops age key"), path: "~/.config/sops/age/keys.txt", gen: ageKeyFile},
	{name: "pgp-private-key-block", vendor: "OpenPGP", kind: Armour, overlap: byPrivateKeyRule, words: split("GPG private key|PGP secret key|signing key export"), path: "release-signing.asc", gen: pgpPrivate},
	{name: "pkcs8-encrypted", vendor: "PKCS #8", kind: Armour, overlap: byPrivateKeyRule, words: split("encrypted private key|PKCS8 key"), path: "certs/server.key.enc", gen: labelled("ENCRYPTED PRIVATE KEY", "MIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI", 1200)},
	{name: "dsa-private-key", vendor: "OpenSSL", kind: Armour, overlap: byPrivateKeyRule, words: split("DSA private key|old DSA key"), path: "/etc/ssh/ssh_host_dsa_key", gen: labelled("DSA PRIVATE KEY", "MIIBuwIBAAKBgQ", 420)},
	{name: "nebula-x25519-private-key", vendor: "Nebula", kind: Armour, overlap: byPrivateKeyRule, words: split("Nebula host key|Nebula private key"), path: "/etc/nebula/host.key", gen: nebula},

	// Bare keys known only by the vendor's name before or after them.
	vendor("deepgram-api-key", "Deepgram", "Deepgram API key|Deepgram key|key for Deepgram", "DEEPGRAM_API_KEY|DEEPGRAM_KEY|deepgramApiKey", str(lowhex, 40)),
	vendor("assemblyai-api-key", "AssemblyAI", "AssemblyAI API key|AssemblyAI key|key for AssemblyAI", "ASSEMBLYAI_API_KEY|ASSEMBLY_AI_KEY|assemblyaiApiKey", str(lowhex, 32)),
	vendor("newrelic-license-key", "New Relic", "New Relic license key|New Relic ingest license|license key for New Relic", "NEW_RELIC_LICENSE_KEY|NEWRELIC_LICENSE|newrelic.license_key", func(r *rand.Rand) string { return rs(r, lowhex, 36) + "NRAL" }),
	vendor("mailjet-secret-key", "Mailjet", "Mailjet secret key|Mailjet API secret|Mailjet private key", "MJ_APIKEY_PRIVATE|MAILJET_SECRET_KEY|mailjetApiSecret", str(lowhex, 32)),
	vendor("pusher-app-secret", "Pusher", "Pusher secret|Pusher app secret|Pusher Channels secret", "PUSHER_APP_SECRET|PUSHER_SECRET|pusherSecret", str(lowhex, 20)),
	vendor("bugsnag-api-key", "Bugsnag", "Bugsnag API key|Bugsnag notifier key", "BUGSNAG_API_KEY|BUGSNAG_KEY|bugsnagApiKey", str(lowhex, 32)),
	vendor("rollbar-access-token", "Rollbar", "Rollbar access token|Rollbar server token|post_server_item token for Rollbar", "ROLLBAR_ACCESS_TOKEN|ROLLBAR_TOKEN|rollbarAccessToken", str(lowhex, 32)),
	vendor("segment-write-key", "Segment", "Segment write key|Segment source key", "SEGMENT_WRITE_KEY|ANALYTICS_WRITE_KEY|segmentWriteKey", str(alnum, 32)),
	vendor("mixpanel-api-secret", "Mixpanel", "Mixpanel API secret|Mixpanel project secret", "MIXPANEL_API_SECRET|MIXPANEL_SECRET|mixpanelSecret", str(lowhex, 32)),
	vendor("openweathermap-api-key", "OpenWeatherMap", "OpenWeatherMap API key|OpenWeather key|appid for OpenWeatherMap", "OPENWEATHER_API_KEY|OWM_API_KEY|openWeatherKey", str(lowhex, 32)),
	vendor("etherscan-api-key", "Etherscan", "Etherscan API key|Etherscan key", "ETHERSCAN_API_KEY|ETHERSCAN_KEY|etherscanApiKey", str(upperNum, 34)),
	vendor("hetzner-cloud-token", "Hetzner Cloud", "Hetzner Cloud API token|hcloud token|Hetzner token", "HCLOUD_TOKEN|HETZNER_API_TOKEN|hcloudToken", str(alnum, 64)),
	vendor("vultr-api-key", "Vultr", "Vultr API key|Vultr key", "VULTR_API_KEY|VULTR_KEY|vultrApiKey", str(upperNum, 36)),
	vendor("sparkpost-api-key", "SparkPost", "SparkPost API key|SparkPost key", "SPARKPOST_API_KEY|SPARKPOST_KEY|sparkpostApiKey", str(lowhex, 40)),
	vendor("twilio-auth-token", "Twilio", "Twilio auth token|Twilio account auth token", "TWILIO_AUTH_TOKEN|TWILIO_TOKEN|twilioAuthToken", str(lowhex, 32)),
	vendor("plivo-auth-token", "Plivo", "Plivo auth token|Plivo token", "PLIVO_AUTH_TOKEN|PLIVO_TOKEN|plivoAuthToken", str(alnum, 40)),
	vendor("vonage-api-secret", "Vonage", "Vonage API secret|Nexmo API secret|Vonage secret", "VONAGE_API_SECRET|NEXMO_API_SECRET|vonageApiSecret", str(alnum, 16)),
	vendor("agora-app-certificate", "Agora", "Agora app certificate|Agora primary certificate", "AGORA_APP_CERTIFICATE|AGORA_CERT|agoraAppCertificate", str(lowhex, 32)),
	vendor("clarifai-pat", "Clarifai", "Clarifai personal access token|Clarifai PAT", "CLARIFAI_PAT|CLARIFAI_API_KEY|clarifaiPat", str(lowhex, 32)),
	vendor("jenkins-api-token", "Jenkins", "Jenkins API token|Jenkins user token", "JENKINS_API_TOKEN|JENKINS_TOKEN|jenkinsApiToken", prefixed("11", lowhex, 32)),
	vendor("rails-secret-key-base", "Ruby on Rails", "Rails secret_key_base|Rails secret key base", "SECRET_KEY_BASE|RAILS_SECRET_KEY_BASE|secret_key_base", str(lowhex, 128)),
	vendor("r2-secret-access-key", "Cloudflare R2", "R2 secret access key|Cloudflare R2 secret", "R2_SECRET_ACCESS_KEY|R2_SECRET_KEY|r2SecretAccessKey", str(lowhex, 64)),
	vendor("backblaze-b2-application-key", "Backblaze B2", "Backblaze B2 application key|B2 application key|Backblaze key", "B2_APPLICATION_KEY|BACKBLAZE_APP_KEY|b2ApplicationKey", func(r *rand.Rand) string { return "K00" + rs(r, "123456", 1) + rs(r, b64, 27) }),

	// Values with ':', '//', '/', '+' or '=' in them.
	{name: "fcm-server-key", vendor: "Firebase Cloud Messaging", kind: Punct, words: split("FCM server key|Firebase server key|legacy FCM key"), names: split("FCM_SERVER_KEY|FIREBASE_SERVER_KEY|fcmServerKey"), gen: one(fcmServerKey)},
	{name: "google-oauth-refresh-token", vendor: "Google OAuth 2.0", kind: Punct, words: split("Google refresh token|Gmail API refresh token|OAuth refresh token from Google"), names: split("GOOGLE_REFRESH_TOKEN|GMAIL_REFRESH_TOKEN|googleRefreshToken"), gen: one(googleRefresh)},
	{name: "wasabi-secret-key", vendor: "Wasabi", kind: Punct, words: split("Wasabi secret key|Wasabi S3 secret"), names: split("WASABI_SECRET_KEY|WASABI_SECRET_ACCESS_KEY|wasabiSecretKey"), gen: one(withSlash)},
	{name: "basic-auth-pair", vendor: "HTTP Basic", kind: Punct, words: split("basic-auth login|basic auth credentials|htpasswd login"), names: split("BASIC_AUTH|HTTP_BASIC_AUTH|basicAuthCredentials"),
		gen: userPass(func(r *rand.Rand) string { return pick(r, "admin", "staging", "grafana", "metrics") }, func(r *rand.Rand) string { return rs(r, alnum+"!*-_.~", 14+r.IntN(11)) })},
	{name: "elastic-api-key", vendor: "Elastic", kind: Punct, words: split("Elasticsearch API key|Elastic Cloud API key"), names: split("ELASTIC_API_KEY|ES_API_KEY|elasticsearchApiKey"), gen: one(elasticKey)},
	{name: "ably-api-key", vendor: "Ably", kind: Punct, words: split("Ably API key|Ably root key"), names: split("ABLY_API_KEY|ABLY_KEY|ablyApiKey"),
		gen: secretIn(str(urlb64, 43), func(r *rand.Rand, s string) string { return rs(r, urlb64, 6) + "." + rs(r, urlb64, 6) + ":" + s })},
	{name: "laravel-app-key", vendor: "Laravel", kind: Punct, words: split("Laravel APP_KEY|Laravel application key"), names: split("APP_KEY|LARAVEL_APP_KEY|app.key"),
		gen: secretIn(func(r *rand.Rand) string { return b64Of(r, 32) }, func(_ *rand.Rand, s string) string { return "base64:" + s })},
	{name: "django-secret-key", vendor: "Django", kind: Punct, words: split("Django SECRET_KEY|Django secret key"), names: split("DJANGO_SECRET_KEY|SECRET_KEY|djangoSecretKey"), gen: one(str("abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)", 50))},
	{name: "nextauth-secret", vendor: "Auth.js", kind: Punct, words: split("NextAuth secret|Auth.js secret"), names: split("NEXTAUTH_SECRET|AUTH_SECRET|nextAuthSecret"), gen: one(func(r *rand.Rand) string { return b64Of(r, 32) })},
	{name: "docker-config-auth", vendor: "Docker registry", kind: Punct, words: split("registry auth from .docker/config.json|Docker registry auth string"), names: split("REGISTRY_AUTH|DOCKER_REGISTRY_AUTH|dockerAuth"), keys: split("auth|registryAuth"), gen: one(dockerAuth)},

	// Connection strings: the password is the secret.
	{name: "redis-url", vendor: "Redis Cloud", kind: Conn, words: split("Redis Cloud connection string|Redis URL"), names: split("REDIS_URL|CACHE_URL|redisUrl"),
		gen: secretIn(str(alnum, 32), func(r *rand.Rand, s string) string {
			return fmt.Sprintf("redis://default:%s@redis-%d.c%d.eu-west-1-2.ec2.redns.redis-cloud.com:%d/0", s, 10000+r.IntN(9999), 1+r.IntN(300), 10000+r.IntN(9999))
		})},
	{name: "rediss-url", vendor: "Upstash", kind: Conn, words: split("Upstash Redis URL|Upstash connection string"), names: split("UPSTASH_REDIS_URL|KV_URL|upstashRedisUrl"),
		gen: secretIn(func(r *rand.Rand) string { return "A" + rs(r, alnum, 3) + "AAIjcDE" + rs(r, alnum, 32) }, func(r *rand.Rand, s string) string {
			return fmt.Sprintf("rediss://default:%s@%s-%s-%d.upstash.io:6379", s, pick(r, "fond", "brave", "cosmic", "quiet"), pick(r, "gecko", "lemur", "otter", "yak"), 10000+r.IntN(89999))
		})},
	{name: "mongodb-srv", vendor: "MongoDB Atlas", kind: Conn, words: split("MongoDB Atlas connection string|Mongo URI"), names: split("MONGODB_URI|MONGO_URL|mongoUri"),
		gen: secretIn(func(r *rand.Rand) string { return rs(r, alnum, 16+r.IntN(9)) }, func(r *rand.Rand, s string) string {
			return fmt.Sprintf("mongodb+srv://%s:%s@cluster0.%s.mongodb.net/%s?retryWrites=true&w=majority&appName=Cluster0", pick(r, "app", "admin", "etl"), s, rs(r, lowerNum, 5), pick(r, "prod", "orders", "test"))
		})},
	{name: "amqps-url", vendor: "CloudAMQP", kind: Conn, words: split("CloudAMQP URL|RabbitMQ connection string"), names: split("CLOUDAMQP_URL|AMQP_URL|rabbitUrl"),
		gen: func(r *rand.Rand) Value {
			u, s := rs(r, lower, 8), rs(r, urlb64, 32)
			return Value{Text: fmt.Sprintf("amqps://%s:%s@%s.rmq%d.cloudamqp.com/%s", u, s, pick(r, "rat", "hawk", "goose", "kangaroo"), 1+r.IntN(5), u), Secrets: []string{s}}
		}},
	{name: "jdbc-sqlserver", vendor: "Microsoft JDBC", kind: Conn, words: split("JDBC URL|SQL Server JDBC connection string"), names: split("SPRING_DATASOURCE_URL|JDBC_URL|jdbcUrl"),
		gen: secretIn(func(r *rand.Rand) string { return rs(r, alnum+"!*-_", 20) }, func(r *rand.Rand, s string) string {
			return fmt.Sprintf("jdbc:sqlserver://%s.database.windows.net:1433;databaseName=%s;user=app@%s;password=%s;encrypt=true;trustServerCertificate=false;loginTimeout=30;", rs(r, lowerNum, 8), pick(r, "billing", "core"), rs(r, lowerNum, 8), s)
		})},
	{name: "jdbc-postgresql", vendor: "PostgreSQL JDBC", kind: Conn, words: split("JDBC URL|Postgres JDBC connection string"), names: split("DATASOURCE_URL|DB_JDBC_URL|jdbcUrl"),
		gen: secretIn(func(r *rand.Rand) string { return rs(r, alnum, 24) }, func(r *rand.Rand, s string) string {
			return fmt.Sprintf("jdbc:postgresql://db-%s.internal:5432/%s?user=app&password=%s&sslmode=require", rs(r, lowerNum, 6), pick(r, "app", "ledger"), s)
		})},
	{name: "adonet-sql", vendor: "ADO.NET (Azure SQL)", kind: Conn, words: split("ADO.NET connection string|Azure SQL connection string"), names: split("ConnectionStrings__Default|SQLAZURECONNSTR_main|connectionString"),
		gen: secretIn(func(r *rand.Rand) string { return rs(r, alnum+"!*-_", 22) }, func(r *rand.Rand, s string) string {
			return fmt.Sprintf("Server=tcp:%s.database.windows.net,1433;Initial Catalog=%s;Persist Security Info=False;User ID=%s;Password=%s;MultipleActiveResultSets=False;Encrypt=True;TrustServerCertificate=False;Connection Timeout=30;", rs(r, lowerNum, 10), pick(r, "orders", "crm"), pick(r, "sqladmin", "app"), s)
		})},
	{name: "azure-storage-connection", vendor: "Azure Storage", kind: Conn, words: split("Azure storage connection string|storage account connection string"), names: split("AZURE_STORAGE_CONNECTION_STRING|AzureWebJobsStorage|storageConnectionString"),
		gen: secretIn(func(r *rand.Rand) string { return b64Of(r, 64) }, func(r *rand.Rand, s string) string {
			return fmt.Sprintf("DefaultEndpointsProtocol=https;AccountName=%s;AccountKey=%s;EndpointSuffix=core.windows.net", rs(r, lowerNum, 12), s)
		})},
	{name: "azure-servicebus-connection", vendor: "Azure Service Bus", kind: Conn, words: split("Service Bus connection string|Azure Service Bus SAS connection string"), names: split("SERVICEBUS_CONNECTION_STRING|AzureServiceBus|serviceBusConnection"),
		gen: secretIn(func(r *rand.Rand) string { return b64Of(r, 32) }, func(r *rand.Rand, s string) string {
			return fmt.Sprintf("Endpoint=sb://%s.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=%s", rs(r, lowerNum, 10), s)
		})},
	{name: "cosmosdb-connection", vendor: "Azure Cosmos DB", kind: Conn, words: split("Cosmos DB connection string|Cosmos connection string"), names: split("COSMOS_CONNECTION_STRING|CosmosDb__ConnectionString|cosmosConnection"),
		gen: secretIn(func(r *rand.Rand) string { return b64Of(r, 64) }, func(r *rand.Rand, s string) string {
			return fmt.Sprintf("AccountEndpoint=https://%s.documents.azure.com:443/;AccountKey=%s;", rs(r, lowerNum, 10), s)
		})},
	{name: "cloudinary-url", vendor: "Cloudinary", kind: Conn, words: split("Cloudinary URL|Cloudinary environment variable"), names: split("CLOUDINARY_URL|MEDIA_URL|cloudinaryUrl"),
		gen: secretIn(str(urlb64, 27), func(r *rand.Rand, s string) string {
			return fmt.Sprintf("cloudinary://%s:%s@%s", rs(r, digits, 15), s, pick(r, "dxy", "acme", "media")+rs(r, lowerNum, 5))
		})},
	{name: "kafka-sasl-jaas", vendor: "Apache Kafka (SASL/PLAIN)", kind: Conn, words: split("Kafka JAAS config|SASL config for the Kafka cluster"), names: split("KAFKA_SASL_JAAS_CONFIG|sasl.jaas.config|saslJaasConfig"),
		gen: secretIn(str(b64, 64), func(r *rand.Rand, s string) string {
			return fmt.Sprintf(`org.apache.kafka.common.security.plain.PlainLoginModule required username="%s" password="%s";`, rs(r, upperNum, 16), s)
		})},

	// Tokens with a shape of their own.
	{name: "kubeadm-bootstrap-token", vendor: "Kubernetes kubeadm", kind: Structured, words: split("kubeadm bootstrap token|join token"), names: split("KUBEADM_TOKEN|JOIN_TOKEN|token"), keys: split("token|bootstrapToken"), gen: kubeadmToken, tmpl: kubeadmTmpl},
	{name: "gcp-private-key-id", vendor: "Google Cloud IAM", kind: Structured, overlap: byUnnamedGCP, words: split("service account key id"), names: split("private_key_id"), keys: split("private_key_id"), params: split("private_key_id|key_id"), gen: gcpKeyID, tmpl: gcpTmpl, jsonExtra: `"type": "service_account", "client_email": "%[3]s", `},
	{name: "cloudflare-cf-api", vendor: "Cloudflare", kind: Structured, overlap: byUnnamedCF, words: split("Cloudflare API token|CF token"), names: split("CF_API|cf_api|CF_API_TOKEN"), keys: split("cf_api"), params: split("cf_api"), gen: one(str(urlb64, 40))},
	{name: "mapbox-secret-token", vendor: "Mapbox", kind: Structured, words: split("Mapbox secret token|Mapbox sk token"), names: split("MAPBOX_SECRET_TOKEN|MAPBOX_DOWNLOADS_TOKEN|mapboxSecretToken"), gen: one(mapboxSecret)},
	{name: "trello-token", vendor: "Trello", kind: Structured, words: split("Trello token|Trello API token"), names: split("TRELLO_TOKEN|TRELLO_API_TOKEN|trelloToken"), gen: one(func(r *rand.Rand) string { return "ATTA" + rs(r, lowhex, 64) + rs(r, uphex, 8) })},
	{name: "kubeconfig-client-key-data", vendor: "Kubernetes kubeconfig", kind: Structured, words: split("client-key-data from the kubeconfig|kubeconfig client key"), names: split("client-key-data|KUBE_CLIENT_KEY_DATA|clientKeyData"), keys: split("client-key-data|clientKeyData"), gen: one(kubeClientKeyData)},
}
