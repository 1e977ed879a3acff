import { createHash } from "node:crypto";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text for HTML content and attribute values. Every dynamic value goes through it. */
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

/** The one stylesheet, inline (no external assets) and allowed by its hash in the CSP. */
const STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#f6f8fa;--card:#fff;--line:#d0d7de;--accent:#0a5bd3;--accent-fg:#fff}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--card:#161b22;--line:#30363d;--accent:#4493f8;--accent-fg:#0d1117}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:36rem;margin:2rem auto;padding:1.5rem;background:var(--card);border:1px solid var(--line);border-radius:.75rem}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 1rem}
h2{font-size:1.125rem;margin:1.25rem 0 .25rem}
h3{font-size:1rem;margin:.75rem 0 .25rem;color:var(--muted)}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.875rem}
ul{margin:.25rem 0 .75rem;padding-left:1.25rem}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.875em;overflow-wrap:anywhere}
.credential{border-top:1px solid var(--line);margin-top:1rem}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.5rem}
button{font:inherit;font-weight:600;padding:.625rem 1.25rem;border-radius:.5rem;border:1px solid var(--line);background:var(--card);color:var(--fg);cursor:pointer;min-width:8rem}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
button:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
`;
const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;

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
    `style-src ${STYLE_HASH}`,
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
<style>${STYLE}</style>
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
