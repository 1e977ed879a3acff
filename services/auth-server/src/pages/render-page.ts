import { escapeHtml, PAGE_STYLE, PAGE_STYLE_SOURCE } from "@attesto/runtime/pages";

export { escapeHtml };

export interface Page {
  status: number;
  html: string;
  /** The Content-Security-Policy header of this page. */
  csp: string;
}

/**
 * A complete page: no scripts, no external assets, one hashed stylesheet. Its CSP allows nothing
 * else; `formAction` lists where its form may post (and be redirected to, as browsers check
 * form-action on the redirects that follow a submission).
 */
export function renderPage(options: { status?: number; title: string; body: string; formAction?: string[] }): Page {
  const formAction = options.formAction?.length ? options.formAction.join(" ") : "'none'";
  const csp = [
    "default-src 'none'",
    `style-src ${PAGE_STYLE_SOURCE}`,
    `form-action ${formAction}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(options.title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>
${options.body}
</main>
</body>
</html>
`;
  return { status: options.status ?? 200, html, csp };
}
