// The demo page's script (GET /v1/verifier/dc-api/demo): creates a request with the API key typed
// into the page, presents through dc-api.js, and polls the result. A demo: a real relying party
// creates the request and reads the result on its backend, never with its API key in a page.
import { isDigitalCredentialsSupported, presentWithDigitalCredentials } from "../dc-api.js";

const $ = (id) => document.getElementById(id);
// This file is served at <verifier>/v1/verifier/dc-api/demo.js.
const verifierUrl = new URL("../../../", import.meta.url).href.replace(/\/$/, "");

$("support").textContent = isDigitalCredentialsSupported()
  ? "This browser supports the Digital Credentials API."
  : "This browser does not expose the Digital Credentials API (a wallet cannot be asked from this page).";

function show(status, lines = []) {
  $("status").textContent = status;
  $("status").dataset.status = status;
  $("checks").replaceChildren(
    ...lines.map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      return item;
    }),
  );
}

async function call(path, apiKey, body) {
  const response = await fetch(`${verifierUrl}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "x-api-key": apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(json.message || json.error_description || `HTTP ${response.status}`);
  return json;
}

/**
 * How the request is signed: not at all, by the tenant's verifier certificate (client_id_prefix),
 * or by a key typed into the page; a signed request names this page's origin in expected_origins.
 */
function signingFields(signer) {
  if (signer === "unsigned") return {};
  const origins = { expected_origins: [location.origin] };
  if (signer === "key") {
    return { verifier_private_key: $("private-key").value, verifier_client_id: $("client-id").value, ...origins };
  }
  return { client_id_prefix: signer, ...origins };
}

$("form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const apiKey = $("api-key").value;
  try {
    show("creating the request");
    const created = await call("/v1/verifier/authorization-request", apiKey, {
      dcql_query: JSON.parse($("dcql").value),
      response_mode: $("mode").value,
      ...signingFields($("signer").value),
    });
    $("session").textContent = created.session_id;
    show("waiting for the wallet");
    await presentWithDigitalCredentials({
      verifierUrl,
      sessionId: created.session_id,
      request: created.dc_api_request,
    });
    for (;;) {
      const result = await call(`/v1/verifier/result/${created.session_id}`, apiKey);
      if (result.status !== "pending" && result.status !== "in_progress") {
        show(
          result.status,
          result.check_results.map((check) => `${check.check}: ${check.status} (${check.reason_code})`),
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  } catch (error) {
    show("error", [error.code ? `${error.code}: ${error.message}` : error.message]);
  }
});
