import { createHash } from "node:crypto";

/**
 * The one stylesheet of every page people see (the auth server's consent and message pages, the
 * issuer's tenant landing page, the deep-link pages of offers and requests): light and dark
 * (`prefers-color-scheme`), full width on phones. Inline in each page and allowed by its hash
 * (PAGE_STYLE_SOURCE), so the pages load nothing.
 */
export const PAGE_STYLE = `
:root{color-scheme:light dark;--fg:#1b1f24;--muted:#57606a;--bg:#f6f8fa;--card:#fff;--line:#d0d7de;--accent:#0a5bd3;--accent-fg:#fff;--ok:#1a7f37;--bad:#cf222e}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--card:#161b22;--line:#30363d;--accent:#4493f8;--accent-fg:#0d1117;--ok:#3fb950;--bad:#f85149}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:36rem;margin:2rem auto;padding:1.5rem;background:var(--card);border:1px solid var(--line);border-radius:.75rem}
main.center{max-width:28rem;text-align:center}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 1rem}
h2{font-size:1.125rem;margin:1.25rem 0 .25rem}
h3{font-size:1rem;margin:.75rem 0 .25rem;color:var(--muted)}
p{margin:.5rem 0}
.muted{color:var(--muted);font-size:.875rem}
ul{margin:.25rem 0 .75rem;padding-left:1.25rem}
ul ul{margin:.125rem 0 .25rem}
.group>.group-label{font-weight:600}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.875em;overflow-wrap:anywhere}
.credential{border-top:1px solid var(--line);margin-top:1rem}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.5rem}
button{font:inherit;font-weight:600;padding:.625rem 1.25rem;border-radius:.5rem;border:1px solid var(--line);background:var(--card);color:var(--fg);cursor:pointer;min-width:8rem}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
button:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.offer{text-align:center;border:1px solid var(--line);border-radius:.75rem;padding:1rem;margin:1rem 0}
.qr{display:inline-block;background:#fff;padding:.5rem;border-radius:.5rem;margin:.75rem 0}
.qr svg{display:block;width:min(78vw,20rem);height:auto}
.open{display:inline-block;font-weight:600;padding:.75rem 1.5rem;border-radius:.5rem;background:var(--accent);color:var(--accent-fg);text-decoration:none;margin:.5rem 0}
.open:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
a{color:var(--accent)}
#status{font-weight:600;margin-top:1rem}
#status[data-tone=ok]{color:var(--ok)}
#status[data-tone=bad]{color:var(--bad)}
[hidden]{display:none!important}
@media (max-width:30rem){main{margin:0;border:0;border-radius:0;min-height:100vh;padding:1.25rem}}
`;

/** The CSP source that allows PAGE_STYLE inline (`style-src`). */
export const PAGE_STYLE_SOURCE = `'sha256-${createHash("sha256").update(PAGE_STYLE).digest("base64")}'`;
