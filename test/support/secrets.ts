/**
 * A corpus of secrets in realistic shapes, one or more per family, each in the sentence a person or
 * an agent would write it in. Values are made up here (a seeded generator), in each family's
 * published form; none is a real secret.
 */
let seed = 7;
/** The generator, for a test that needs one more value of its own. */
export const random = (n: number) => rnd(n);
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";
const B64 = `${ALNUM}+/`;
function rnd(n: number, alphabet = ALNUM): string {
  let out = "";
  for (let i = 0; i < n; i++) {
    // In 32-bit integer arithmetic: the product in doubles loses its low bits, and the values ran to AAAA….
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    out += alphabet[seed % alphabet.length];
  }
  return out;
}

export type Case = [family: string, text: string, secret: string];
export const cases: Case[] = [];
const add = (family: string, make: (s: string) => string, secret: string) => cases.push([family, make(secret), secret]);

// AWS
add("aws access key id", (s) => `the key is ${s} for the bucket`, `AKIA${rnd(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}`);
add("aws access key id (sts)", (s) => `temp creds ${s}`, `ASIA${rnd(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}`);
add("aws secret key (ini)", (s) => `[default]\naws_secret_access_key = ${s}\n`, rnd(40, B64));
add("aws secret key (env)", (s) => `export AWS_SECRET_ACCESS_KEY=${s}`, rnd(40, B64));
add("aws secret key (json)", (s) => `{"AccessKeyId": "x", "SecretAccessKey": "${s}"}`, rnd(40, B64));
add("aws secret key (quoted env)", (s) => `AWS_SECRET_ACCESS_KEY="${s}" aws s3 ls`, rnd(40, B64));
add("aws session token", (s) => `aws_session_token=${s}`, rnd(120, B64));
// GitHub
for (const p of ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
  add(`github ${p}`, (s) => `use ${s} to push`, `${p}${rnd(36)}`);
add("github fine-grained pat", (s) => `token: ${s}`, `github_pat_${rnd(22)}_${rnd(59)}`);
// GitLab, npm, PyPI, Hugging Face, Docker
add(
  "gitlab pat",
  (s) => `curl --header "PRIVATE-TOKEN: ${s}" https://gitlab.example.com/api/v4/projects`,
  `glpat-${rnd(20)}`,
);
add("gitlab deploy token", (s) => `git clone with ${s}`, `gldt-${rnd(20)}`);
add("npm token", (s) => `//registry.npmjs.org/:_authToken=${s}`, `npm_${rnd(36)}`);
add("npm token bare", (s) => `NPM_TOKEN is ${s}`, `npm_${rnd(36)}`);
add("pypi token", (s) => `password = ${s}`, `pypi-AgEIcHlwaS5vcmc${rnd(60)}`);
add("pypi token bare", (s) => `twine upload -u __token__ ${s}`, `pypi-AgEIcHlwaS5vcmc${rnd(60)}`);
add("hugging face token", (s) => `HF says ${s}`, `hf_${rnd(34)}`);
add("docker pat", (s) => `docker login -u me ${s}`, `dckr_pat_${rnd(27)}`);
// SendGrid, Twilio, Slack, Discord, Telegram, Mailchimp
add("sendgrid key", (s) => `sg key ${s}`, `SG.${rnd(22)}.${rnd(43)}`);
add("twilio api key", (s) => `twilio ${s}`, `SK${rnd(32, HEX)}`);
add("twilio account sid", (s) => `account ${s}`, `AC${rnd(32, HEX)}`);
add("twilio auth token", (s) => `TWILIO_AUTH_TOKEN=${s}`, rnd(32, HEX));
add("slack bot token", (s) => `slack ${s}`, `xoxb-${rnd(12, "0123456789")}-${rnd(13, "0123456789")}-${rnd(24)}`);
add(
  "slack user token",
  (s) => `slack ${s}`,
  `xoxp-${rnd(12, "0123456789")}-${rnd(12, "0123456789")}-${rnd(13, "0123456789")}-${rnd(32, HEX)}`,
);
add("slack app token", (s) => `socket mode ${s}`, `xapp-1-${rnd(11)}-${rnd(13, "0123456789")}-${rnd(64, HEX)}`);
add(
  "slack webhook",
  (s) => `post to ${s} please`,
  `https://hooks.slack.com/services/T${rnd(8)}/B${rnd(10)}/${rnd(24)}`,
);
add("discord webhook", (s) => `hook ${s}`, `https://discord.com/api/webhooks/${rnd(18, "0123456789")}/${rnd(68)}`);
add("telegram bot token", (s) => `bot ${s}`, `${rnd(10, "123456789")}:AA${rnd(33)}`);
add("mailchimp key", (s) => `mailchimp ${s}`, `${rnd(32, HEX)}-us${rnd(1, "123456789")}`);
// Azure
add(
  "azure storage connection string",
  (s) => `DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${s};EndpointSuffix=core.windows.net`,
  `${rnd(86, B64)}==`,
);
add(
  "azure sas signature",
  (s) => `https://acme.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2026-12-31T00:00:00Z&sig=${s}`,
  `${rnd(43, ALNUM)}%3D`,
);
add(
  "azure service bus",
  (s) => `Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${s}`,
  `${rnd(43, B64)}=`,
);
add("azure client secret", (s) => `AZURE_CLIENT_SECRET=${s}`, `${rnd(3)}8Q~${rnd(34)}`);
// Keys
add(
  "rsa private key",
  (s) => `here:\n-----BEGIN RSA PRIVATE KEY-----\n${s}\n-----END RSA PRIVATE KEY-----\nthanks`,
  rnd(64, B64),
);
add("ec private key", (s) => `-----BEGIN EC PRIVATE KEY-----\n${s}\n-----END EC PRIVATE KEY-----`, rnd(64, B64));
add(
  "openssh private key",
  (s) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${s}\n-----END OPENSSH PRIVATE KEY-----`,
  rnd(70, B64),
);
add("pkcs8 private key, cut off", (s) => `-----BEGIN PRIVATE KEY-----\n${s}`, rnd(64, B64));
add(
  "pgp private key block",
  (s) => `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${s}\n-----END PGP PRIVATE KEY BLOCK-----`,
  rnd(64, B64),
);
add(
  "putty key",
  (s) =>
    `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\nPublic-Lines: 2\nAAAA\nPrivate-Lines: 1\n${s}\nPrivate-MAC: ${rnd(64, HEX)}`,
  rnd(44, B64),
);
add("age secret key", (s) => `age key ${s}`, `AGE-SECRET-KEY-1${rnd(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")}`);
// Headers and flags
add("authorization basic", (s) => `Authorization: Basic ${s}`, `${rnd(28, B64)}==`);
add("authorization bearer", (s) => `-H "Authorization: Bearer ${s}"`, rnd(40));
add("bearer in prose", (s) => `send it with bearer ${s}`, rnd(32));
add("x-api-key header", (s) => `X-Api-Key: ${s}`, rnd(32));
add("api-key header", (s) => `curl -H 'api-key: ${s}' https://api.example.com`, rnd(32));
add("--password flag", (s) => `mysql --password ${s} -h db`, `${rnd(6)}#${rnd(4)}`);
add("--password= flag", (s) => `psql --password=${s}`, rnd(12));
add("--token flag", (s) => `tool login --token ${s}`, rnd(24));
add("curl -u", (s) => `curl -u admin:${s} https://example.com`, rnd(14));
// URLs with credentials
add("postgres url", (s) => `DATABASE_URL=postgres://admin:${s}@db.internal:5432/app`, rnd(16));
add("mysql url", (s) => `mysql://root:${s}@localhost/db`, rnd(12));
add("mongodb srv url", (s) => `mongodb+srv://app:${s}@cluster0.abcde.mongodb.net/test`, rnd(20));
add("redis url", (s) => `redis://:${s}@cache:6379/0`, rnd(18));
add("amqp url", (s) => `amqp://guest:${s}@mq:5672/`, rnd(12));
add("https url with password", (s) => `clone https://me:${s}@git.example.com/repo.git`, rnd(14));
add("ftp url", (s) => `ftp://upload:${s}@files.example.com/in`, rnd(10));
// .env and config assignments
add("DB_PASSWORD", (s) => `DB_PASSWORD=${s}`, rnd(14));
add("GITHUB_TOKEN", (s) => `GITHUB_TOKEN=${s} npm run release`, rnd(30));
add("API_KEY", (s) => `API_KEY=${s}`, rnd(32, HEX));
add("SECRET_KEY", (s) => `SECRET_KEY='${s}'`, rnd(50));
add("STRIPE_SECRET", (s) => `STRIPE_SECRET=${s}`, rnd(24));
add("MYAPP_CLIENT_SECRET", (s) => `MYAPP_CLIENT_SECRET="${s}"`, rnd(40));
add("REDIS_PASS", (s) => `REDIS_PASS=${s}`, rnd(16));
add("PGPASSWORD", (s) => `PGPASSWORD=${s} psql -h db`, rnd(12));
add("MYSQL_PWD", (s) => `MYSQL_PWD=${s}`, rnd(12));
add(
  "HEROKU_API_KEY",
  (s) => `HEROKU_API_KEY=${s}`,
  `${rnd(8, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(4, HEX)}-${rnd(12, HEX)}`,
);
add("password with spaces (yaml)", (s) => `password: "${s}"`, `correct horse ${rnd(6)} staple`);
add("password with & and ;", (s) => `DB_PASSWORD=${s}`, `ab&c${rnd(4)};d${rnd(4)}`);
add("password json", (s) => `{"user": "me", "password": "${s}"}`, rnd(14));
add("secret yaml", (s) => `client_secret: ${s}`, rnd(32));
add("token in query string", (s) => `https://api.example.com/v1?access_token=${s}&page=2`, rnd(40));
add("api key in query string", (s) => `GET /maps?key=x&apikey=${s}`, rnd(32));
add("passwd in ini", (s) => `[db]\npasswd = ${s}\n`, rnd(12));
add("private_key json field", (s) => `"private_key": "${s}"`, rnd(60, B64));
// Other providers with prefixes
add("stripe live key", (s) => `stripe ${s}`, `sk_live_${rnd(24)}`);
add("stripe restricted key", (s) => `stripe ${s}`, `rk_live_${rnd(24)}`);
add("google api key", (s) => `maps key ${s}`, `AIza${rnd(35)}`);
add("openai key", (s) => `openai ${s}`, `sk-proj-${rnd(48)}`);
add("anthropic key", (s) => `claude ${s}`, `sk-ant-api03-${rnd(90)}`);
add("shopify token", (s) => `shop ${s}`, `shpat_${rnd(32, HEX)}`);
add("linear key", (s) => `linear ${s}`, `lin_api_${rnd(40)}`);
add("vault token", (s) => `vault ${s}`, `hvs.${rnd(24)}`);
add("digitalocean token", (s) => `doctl ${s}`, `dop_v1_${rnd(64, HEX)}`);
add("databricks token", (s) => `databricks ${s}`, `dapi${rnd(32, HEX)}`);
add("jwt", (s) => `session ${s}`, `eyJ${rnd(20)}.eyJ${rnd(40)}.${rnd(43)}`);
// Shapes the maintained preset alone missed
add("mysql -p password", (s) => `mysql -u root -p${s} -h db.internal app`, `Zq${rnd(14)}`);
add("mysqldump -p quoted password", (s) => `mysqldump -uroot -p'${s}' app > dump.sql`, `${rnd(12)}`);
add(
  "bare aws secret key beside its id",
  (s) => `AKIA${rnd(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")} ${s}`,
  `${rnd(18)}/${rnd(10)}+${rnd(10)}`,
);
add("twilio auth token beside its sid", (s) => `sid AC${rnd(32, HEX)} token ${s}`, rnd(32, HEX));
add(
  "1password service account token",
  (s) => `export OP_SERVICE_ACCOUNT_TOKEN=${s}`.replace("OP_SERVICE_ACCOUNT_TOKEN=", "OP_SA "),
  `ops_eyJ${rnd(600)}`,
);
add("mailgun key", (s) => `mailgun ${s}`, `key-${rnd(32, "0123456789abcdefghijklmnopqrstuvwxyz")}`);
add("google oauth access token", (s) => `gcloud token ${s}`, `ya29.${rnd(60)}`);
add("discord bot token", (s) => `bot.login("${s}")`, `M${rnd(25)}.${rnd(6)}.${rnd(38)}`);
add("telegram bot token, 7-digit id", (s) => `bot ${s}`, `${rnd(7, "123456789")}:AA${rnd(33)}`);
