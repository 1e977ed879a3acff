import { createHash } from "node:crypto";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

const STYLE = `
:root{color-scheme:light dark}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:36rem;margin:2rem auto;padding:1.5rem}
h1{font-size:1.5rem;margin:0 0 1rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere}
`;
const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;

/** The page the browser sees on its return to the holder (no scripts, no external assets). */
export interface CallbackPage {
  status: number;
  html: string;
  csp: string;
}

/**
 * The end of the authorization code flow in the browser: received (with the wallet's credential
 * id and the issuer's) or not (with the reason, one of the holder's own messages). The caller of
 * POST /v1/oid4vci/authorize reads the same outcome at GET /v1/oid4vci/authorize/:flow_id.
 */
export function callbackPage(
  outcome:
    | { received: true; credentialId: string; vct: string; issuerCredentialId: string | null }
    | { received: false; status: number; message: string },
): CallbackPage {
  const body = outcome.received
    ? `<h1>Credential received</h1>
<p>The credential is in your wallet. You can close this page.</p>
<p>Type: <code>${escapeHtml(outcome.vct)}</code></p>
<p>Wallet id: <code id="credential-id">${escapeHtml(outcome.credentialId)}</code></p>${
        outcome.issuerCredentialId
          ? `\n<p>Issuer's id: <code id="issuer-credential-id">${escapeHtml(outcome.issuerCredentialId)}</code></p>`
          : ""
      }`
    : `<h1>Credential not received</h1>
<p id="reason">${escapeHtml(outcome.message)}</p>
<p>Start again from your wallet.</p>`;
  const title = outcome.received ? "Credential received" : "Credential not received";
  return {
    status: outcome.received ? 200 : outcome.status,
    csp: `default-src 'none'; style-src ${STYLE_HASH}; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
    html: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`,
  };
}
