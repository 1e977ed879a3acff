import { escapeHtml, PAGE_STYLE, PAGE_STYLE_SOURCE } from "@attesto/runtime/pages";

/** The page the browser sees on its return to the holder (no scripts, no external assets; the pages' one stylesheet). */
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
    csp: `default-src 'none'; style-src ${PAGE_STYLE_SOURCE}; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
    html: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${PAGE_STYLE}</style>
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
