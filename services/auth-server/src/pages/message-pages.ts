import { escapeHtml, type Page, renderPage } from "./render-page.js";

/** An error page of the browser step: a title, an explanation, the status; never a redirect. */
export function errorPage(status: number, title: string, message: string): Page {
  const body = `<h1>${escapeHtml(title)}</h1>
<p role="alert">${escapeHtml(message)}</p>`;
  return renderPage({ status, title, body });
}

/** GET /end_session without a registered return address. */
export function signedOutPage(): Page {
  const body = `<h1>You are signed out</h1>
<p>Your session with this authorization server has ended. You can close this page.</p>`;
  return renderPage({ title: "Signed out", body });
}
