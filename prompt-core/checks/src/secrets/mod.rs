//! An opt-in guard against credentials in a prompt.
//!
//! A prompt is built from files an agent did not write, and it is sent to a
//! paid API: a key that found its way into `AGENTS.md`, a memory file or a
//! symlinked `.env` would leave the machine with it. [`scan`] finds
//! credential-shaped strings in a text, [`scan_prompt`] scans every channel
//! of an assembled prompt (the system prompt and the reminder that rides in
//! the user message) and names the layer each finding sits in, [`scan_request`]
//! scans every string of a request body that leaves
//! the process, and [`redact`] replaces them.
//!
//! What is looked for, anywhere in a line (after a list marker, in prose,
//! in a JSON or YAML value):
//!
//! - **vendor formats** from a maintained list: the rules of gitleaks
//!   v8.30.1 (`vendor/gitleaks.toml`, MIT, vendored byte for byte; 218 of its
//!   222 rules run, three of them with another expression, each exception
//!   with its reason in `gitleaks.rs`), run as gitleaks runs them (keywords,
//!   secret group, entropy, allowlists, Go's ASCII classes). A finding of one
//!   names its rule, [`SecretFinding::rule`] (`npm-access-token`), and
//!   [`vendor_rules`] lists them;
//! - the crate's own formats, for what that list lacks or matches more
//!   narrowly than vendors issue it: Anthropic (`sk-ant-`), OpenAI (`sk-`),
//!   AWS key ids and a bare 40-character secret access key, GitHub, GitLab,
//!   Slack tokens and webhooks (incoming, workflow, trigger), Stripe, Google
//!   (`AIza`, `ya29.`, `GOCSPX-`), PyPI, Hugging Face, SendGrid, Twilio API
//!   keys and auth tokens, Discord, JSON Web Tokens, Groq (`gsk_`), xAI
//!   (`xai-`), Supabase (`sbp_`), Replicate (`r8_`), Docker Hub
//!   (`dckr_pat_`), Square (`sq0csp-`), Mapbox (`sk.eyJ`), New Relic
//!   (`NRAK-`), Telegram bot tokens, Mailgun (`key-`), Azure SAS signatures
//!   (`sig=`), LangSmith, Tailscale, Contentful, Doppler, Pinecone, Notion,
//!   Zapier, Buildkite, CircleCI, Netlify, Deno, Bitbucket, Figma; and npm
//!   (`npm_`), Vault (`hvs.`), Atlassian (`ATATT3`), Notion (`ntn_`) and
//!   Sentry (`sntryu_`, `sntrys_`) tokens where gitleaks' rules would miss
//!   them (at a sentence's end, in parentheses, shorter), a Twilio auth
//!   token beside its account SID and an API key's secret beside its SID;
//! - PEM and PGP private key blocks, a key's base64 body without its BEGIN
//!   line (by the DER header every key of its type starts with, or base64
//!   lines an END line closes), PuTTY key files, age identities;
//! - the password of a connection string (`postgres://user:PASSWORD@host`);
//! - secrets known by what stands before them: `Authorization: Bearer ...`
//!   (and `Basic`, `token`), a bearer token named in prose, Azure
//!   `AccountKey=` / `SharedAccessKey=`, a `.netrc` entry's `password`,
//!   `curl -u user:PASS`, `mysql -pPASS`, `sshpass -p PASS`, `--password
//!   PASS`, a Docker config's `"auth"`;
//! - secrets a structure names: `<password>...</password>`, a quoted pair
//!   (`define('DB_PASSWORD', '...')`), an HTML `<input>`'s value (type
//!   `password`, or `hidden` with a secret-looking name), SQL's `IDENTIFIED
//!   BY '...'` and `PASSWORD '...'`, a Markdown table's cells under a
//!   `password` header, a `.pgpass` line;
//! - the value given to a secret-looking name (`DB_PASSWORD=...`,
//!   `export API_TOKEN="..."`, `{"db_password": "..."}`, `client_secret: ...`,
//!   a YAML block `secret: |` and the lines below it, `- AWS_SECRET_ACCESS_KEY=...`
//!   in a list, `Deploy with KEY=...` in prose, `X-Api-Key: ...`, a Markdown
//!   table row `| DB_PASSWORD | value |`).
//!   A name is secret-looking when one of its parts (split at `_`, `-`, `.`
//!   and camelCase) is `password`, `passwd`, `pwd`, `passphrase`, `secret`,
//!   `token`, `credential(s)` or `apikey`, or is `key` after `api`, `access`,
//!   `secret`, `private`, ...; but not when its last part says it is about
//!   the secret rather than the secret (`PASSWORD_POLICY`, `TOKEN_URL`,
//!   `SECRET_NAME`, `password_file`, `max_tokens`).
//!
//! Each text is scanned twice when it holds an escape: as it is, and as a
//! model reads it at once, with JSON's `\u0073`, `\x73` and `\u{73}` (of
//! Python, C, JavaScript and Rust strings), HTML's `&#115;` and
//! `&lowbar;`, URL-encoding (`%2D`), Markdown's backslash escapes (`\_`) and
//! full-width forms and lookalikes (`ｓｋ－`, `ѕk‐`: NFKC and UTS #39's
//! confusables, the tag matcher's fold) decoded in one pass. A finding in the
//! decoded view is reported at the raw bytes it came from. Base64, hex,
//! reversed text, rot13 and characters spaced apart are not decoded: this is
//! a guard against shapes, not against a determined encoder.
//!
//! Shapes, not proof: a finding is a string to look at. Placeholders are not
//! findings: `${API_KEY}`, `$(gh auth token)`, `<your-key>`, `{{ secret }}`,
//! `********`, `your-api-key-here`, `hf_xxx`, `changeme`, an empty value, a
//! number, a path, a URL without a password, a reference such as
//! `os.environ[...]` or `config.db.password`. A placeholder is judged by its
//! shape (a template marker, mostly one filler character, plain words asking
//! for the value), never by a word inside it: `d4LBYGxxxoxZWccEa` is a key.
//! A plain-word name in prose (`Password: required`)
//! needs a value with both letters and digits. The corpus in
//! `tests/fixtures/secrets/` holds one labelled fake per vendor rule and per
//! structure and encoding, and negatives; the `secrets` tests measure recall
//! and false positives on it, per vendor, and on the prompts the project
//! renders.
//!
//! ```
//! use prompt_checks::secrets::{redact, scan, SecretKind};
//!
//! let text = "Deploy with GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345 set.";
//! let found = scan(text);
//! assert_eq!(found.len(), 1);
//! assert_eq!(found[0].kind, SecretKind::GitHub);
//! assert_eq!(&text[found[0].range.clone()], "ghp_0123456789abcdefghijABCDEFGHIJ012345");
//! assert_eq!(redact(text, &found), "Deploy with GITHUB_TOKEN=[REDACTED github token] set.");
//!
//! // A vendor format without a kind of its own is named by its rule.
//! let text = concat!("NPM_TOKEN=npm_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
//! let found = scan(text);
//! assert_eq!((found[0].kind, found[0].rule), (SecretKind::Vendor, "npm-access-token"));
//! assert_eq!(redact(text, &found), "NPM_TOKEN=[REDACTED npm-access-token]");
//! ```

use std::fmt;
use std::ops::Range;

use serde::Serialize;

mod assignment;
mod context;
mod decode;
mod formats;
mod gitleaks;
mod prompt;
mod request;
mod rules;
mod scan;
mod structure;

pub use prompt::{PromptFinding, scan_prompt};
pub use request::{RequestFinding, scan_request};
pub use scan::scan;

/// The release of gitleaks whose rules are vendored.
pub const GITLEAKS_VERSION: &str = "v8.30.1";

/// A vendor format the scan runs: gitleaks' rules (but the few it drops),
/// then the crate's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct VendorRule {
    /// Its id, as [`SecretFinding::rule`] names it.
    pub id: &'static str,
    /// The kind of its findings.
    pub kind: SecretKind,
    /// Whether it is one of gitleaks' (else the crate's own).
    pub vendored: bool,
}

/// Every vendor format the scan runs, in the order it runs them. The rules
/// are parsed and compiled at the first call (or the first scan).
///
/// ```
/// use prompt_checks::secrets::vendor_rules;
///
/// let npm = vendor_rules().find(|r| r.id == "npm-access-token").unwrap();
/// assert!(npm.vendored);
/// assert!(vendor_rules().any(|r| r.id == "groq" && !r.vendored));
/// ```
pub fn vendor_rules() -> impl Iterator<Item = VendorRule> {
    rules::RuleSet::get().rules().iter().map(|rule| VendorRule {
        id: &rule.id,
        kind: rule.kind,
        vendored: rule.source == rules::Source::Gitleaks,
    })
}

/// What kind of credential a string looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SecretKind {
    /// An Anthropic API key, `sk-ant-...`.
    Anthropic,
    /// An OpenAI API key, `sk-...` / `sk-proj-...`.
    OpenAi,
    /// An AWS access key id, `AKIA...` / `ASIA...`.
    Aws,
    /// An AWS secret access key on its own: 40 characters of base64, upper
    /// and lower case and digits, no name before it. A name before it makes
    /// it an [`Assignment`](Self::Assignment).
    AwsSecretKey,
    /// A GitHub token, `ghp_...` / `github_pat_...`.
    GitHub,
    /// A Slack token, `xoxb-...`, or webhook URL.
    Slack,
    /// A Google API key, `AIza...`.
    Google,
    /// A PEM or PGP private key block, or a key's body without its BEGIN line.
    PrivateKey,
    /// A GitLab token, `glpat-...`.
    GitLab,
    /// A Stripe secret or restricted key (`sk_live_...`, `rk_test_...`) or webhook secret (`whsec_...`).
    Stripe,
    /// A JSON Web Token, `eyJ....eyJ....signature`.
    Jwt,
    /// The password of a connection string, `scheme://user:PASSWORD@host`.
    ConnectionString,
    /// The value given to a secret-looking name: a `.env` line, a list item,
    /// prose, JSON or YAML (a block too), an element, a quoted pair, an HTML
    /// input, a Markdown table's cell.
    Assignment,
    /// A PyPI upload token, `pypi-AgE...`.
    PyPi,
    /// A Hugging Face access token, `hf_...`.
    HuggingFace,
    /// A SendGrid API key, `SG.<22>.<43>`.
    SendGrid,
    /// A Twilio API key secret id (`SK` and 32 hex digits) or auth token.
    Twilio,
    /// A Discord bot token (`<id>.<time>.<hmac>`) or webhook URL.
    Discord,
    /// The credentials of an HTTP `Authorization` header (`Bearer`, `Basic`,
    /// `token`), or a bearer token named in prose.
    AuthorizationHeader,
    /// An Azure key: a connection string's `AccountKey=` / `SharedAccessKey=`,
    /// or a shared access signature's `sig=`.
    Azure,
    /// A password on a command line: `curl -u user:PASS`, `mysql -pPASS`,
    /// `--password PASS`, `sshpass -p PASS`.
    CommandLine,
    /// The password of a `.netrc` entry (`machine ... login ... password PASS`).
    Netrc,
    /// The `auth` of a Docker registry config (base64 of `user:password`).
    RegistryAuth,
    /// A password SQL sets: `IDENTIFIED BY '...'`, `WITH PASSWORD '...'`.
    SqlPassword,
    /// The password of a password file's line (`.pgpass`:
    /// `host:port:db:user:PASSWORD`).
    PasswordFile,
    /// A vendor's token of a format the crate has no kind for (npm, Vault,
    /// Shopify, ...): [`SecretFinding::rule`] names it.
    Vendor,
}

impl SecretKind {
    /// The words `Display` writes.
    fn words(self) -> &'static str {
        match self {
            SecretKind::Anthropic => "anthropic api key",
            SecretKind::OpenAi => "openai api key",
            SecretKind::Aws => "aws access key id",
            SecretKind::AwsSecretKey => "aws secret access key",
            SecretKind::GitHub => "github token",
            SecretKind::Slack => "slack token",
            SecretKind::Google => "google api key",
            SecretKind::PrivateKey => "private key",
            SecretKind::GitLab => "gitlab token",
            SecretKind::Stripe => "stripe key",
            SecretKind::Jwt => "json web token",
            SecretKind::ConnectionString => "connection string password",
            SecretKind::Assignment => "secret assignment",
            SecretKind::PyPi => "pypi token",
            SecretKind::HuggingFace => "hugging face token",
            SecretKind::SendGrid => "sendgrid api key",
            SecretKind::Twilio => "twilio api key",
            SecretKind::Discord => "discord token",
            SecretKind::AuthorizationHeader => "authorization header credentials",
            SecretKind::Azure => "azure account key",
            SecretKind::CommandLine => "command-line password",
            SecretKind::Netrc => "netrc password",
            SecretKind::RegistryAuth => "registry auth",
            SecretKind::SqlPassword => "sql password",
            SecretKind::PasswordFile => "password file entry",
            SecretKind::Vendor => "vendor token",
        }
    }
}

impl fmt::Display for SecretKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.words())
    }
}

/// A credential-shaped string in a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SecretFinding {
    /// What it looks like.
    pub kind: SecretKind,
    /// The rule that found it: a gitleaks rule's id (`npm-access-token`,
    /// `vault-service-token`) or one of the crate's own (`anthropic`,
    /// `aws-secret-access-key`, `assignment`, `pgpass`, ...).
    pub rule: &'static str,
    /// Its byte range in the text scanned.
    pub range: Range<usize>,
}

impl SecretFinding {
    /// What to call it: its kind's words, or for [`SecretKind::Vendor`] its
    /// rule (`npm-access-token`).
    pub fn label(&self) -> &'static str {
        match self.kind {
            SecretKind::Vendor => self.rule,
            kind => kind.words(),
        }
    }
}

/// `text` with each finding replaced by `[REDACTED <label>]` (see
/// [`SecretFinding::label`]). `findings` must come from [`scan`] of this
/// same text (sorted, not overlapping).
pub fn redact(text: &str, findings: &[SecretFinding]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for finding in findings {
        let range = finding.range.clone();
        if range.start < at || range.end > text.len() {
            continue;
        }
        out.push_str(&text[at..range.start]);
        out.push_str("[REDACTED ");
        out.push_str(finding.label());
        out.push(']');
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}
