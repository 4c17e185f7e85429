/**
 * A dotenv file: `.env`, `.envrc` (direnv), either with suffixes (`.env.local`,
 * `.env.production.local`), or `<name>.env` — unless a suffix marks a template that documents
 * the variables (`.env.example`, `.envrc.example.md`). One rule for the publish gate and for
 * PathGuard, whose earlier `.env*` refused `.environment.ts` and `src/.envrc.example.md` while
 * the gate let a `.envrc` through.
 */
export const DOTENV_FILE_NAME =
  /(?:^|\/)(?:\.env(?:rc)?(?!(?:\.[^/.]*)*\.(?:example|sample|template|dist|defaults|schema|tpl)(?:\.|$))(?:\.[^/]*)?|[^/]+\.env)$/i;

/**
 * Files that hold credentials by what they are, whatever their content looks like today:
 * dotenv files, private-key containers, credential stores. The publish gate refuses a
 * change that adds one, whoever wrote it (the model, a check's output, a human commit on
 * the branch). Narrower than PathGuard's SECRET_FILE_PATTERNS, which also keeps the model
 * from reading such files: here a committed `.npmrc` or `secrets/` folder is legitimate and
 * its content is scanned instead, and `.pem` certificates are public (a private key in one
 * is found by content).
 */
const SECRET_FILE_NAMES: readonly RegExp[] = [
  DOTENV_FILE_NAME,
  // Private-key containers: PKCS#12, Java keystores, PuTTY, KeePass, raw .key files.
  /\.(?:p12|pfx|jks|keystore|bks|ppk|kdbx|key)$/i,
  // OpenSSH private keys by their default names (the .pub halves are public).
  /(?:^|\/)id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?$/i,
  // Credential stores.
  /(?:^|\/)\.(?:netrc|_netrc|git-credentials|pgpass|htpasswd)$/i,
  /(?:^|\/)\.aws\/credentials$/i,
  /(?:^|\/)\.docker\/config\.json$/i,
  /\.tfstate(?:\.backup)?$/i,
];

/** The rule id of a file refused by its name (`.env`, `id_rsa`, `*.p12`…). */
export const SECRET_FILE_RULE = 'secret-file';

/** True when a file at this path is refused by name (posix separators, relative to the repository). */
export function isSecretFileName(path: string): boolean {
  return SECRET_FILE_NAMES.some((p) => p.test(path));
}
