/**
 * Issue #31 end to end: the real platform with the scheduler on LEDGER_BACKEND=evm against a local
 * anvil node (the `@foundry-rs/anvil` npm package) started here. The holder service receives a
 * credential with `notarize_on_ledger`; its reference is pending, then, once the batch's transaction
 * has its confirmations, complete at the holder (`GET /v1/vc/:id`) and at the credential issuer
 * (`GET /v1/credentials/:id`); the real `attesto` CLI, in a child process whose environment names
 * no service, database or platform file, verifies both from the chain's RPC URL alone; tampered
 * references fail.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { runNotarizationVerify } from "@attesto/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANVIL_CHAIN_ID, type Anvil, startAnvil } from "../../services/scheduler/test/support/anvil.js";
import { didKeyOf, walletKey } from "../interop/support/keys.js";
import { type InteropPlatform, startInteropPlatform } from "../interop/support/platform.js";
import { applyTenant, createOffer, type Tenant } from "../interop/support/tenant.js";
import { checkEvmReference, type EvmReference } from "./support/independent-anchor-check.js";

/** Ports 20381..20388 / 21381..21388. */
const PORT_OFFSET = 12_300;
const CONFIRMATIONS = 2;
const POLL_DEADLINE_MS = 60_000;
const CLI = resolve(import.meta.dirname, "../../cli/bin/attesto.js");

interface Reference {
  state: string;
  object_id: string;
  transaction_hash?: string;
  block_number?: number;
  [field: string]: unknown;
}

const SCHEDULER_ENV = (anvil: Anvil, key: string): Record<string, string> => ({
  SCHEDULER_LEDGER_BACKEND: "evm",
  SCHEDULER_EVM_RPC_URL: anvil.url,
  SCHEDULER_EVM_CHAIN_ID: String(ANVIL_CHAIN_ID),
  SCHEDULER_EVM_SIGNER_KEY: key,
  SCHEDULER_EVM_CONFIRMATIONS: String(CONFIRMATIONS),
  SCHEDULER_EVM_POLLING_INTERVAL_MS: "50",
  SCHEDULER_EVM_CONFIRMATION_WAIT_MS: "20000",
  SCHEDULER_NOTARY_BATCH_MAX_SIZE: "1",
});

/** The CLI as a user runs it: only PATH and HOME from this process, nothing that names the platform. */
async function cliVerify(file: string, rpcUrl: string) {
  const env = { PATH: process.env.PATH ?? "", HOME: mkdtempSync(join(tmpdir(), "attesto-cli-home-")) };
  try {
    return await promisify(execFile)(
      process.execPath,
      [CLI, "notarization", "verify", file, "--rpc-url", rpcUrl, "--confirmations", String(CONFIRMATIONS)],
      { env, cwd: env.HOME },
    );
  } finally {
    rmSync(env.HOME, { recursive: true, force: true });
  }
}

describe("EVM notarization end to end: holder and issuer references verified from the chain alone", () => {
  let anvil: Anvil;
  let platform: InteropPlatform;
  let tenant: Tenant;
  const dir = mkdtempSync(join(tmpdir(), "attesto-evm-e2e-"));
  const previous = new Map<string, string | undefined>();

  beforeAll(async () => {
    anvil = await startAnvil();
    const env = SCHEDULER_ENV(anvil, await anvil.fundedKey());
    for (const [name, value] of Object.entries(env)) {
      previous.set(name, process.env[name]);
      process.env[name] = value;
    }
    platform = await startInteropPlatform({
      portOffset: PORT_OFFSET,
      label: "evm",
      alsoStart: ["scheduler", "holder"],
    });
    tenant = await applyTenant(platform, "evm");
  }, 180_000);

  afterAll(async () => {
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await platform?.close();
    await anvil?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("notarize_on_ledger ends with chain references that `attesto notarization verify` confirms; tampered ones fail", async () => {
    const holderUrl = platform.url("holder");
    const password = "holder-password-1";
    const registered = await fetch(`${holderUrl}/v1/user/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password }),
    });
    const { uuid } = (await registered.json()) as { uuid: string };
    const login = await fetch(`${holderUrl}/v1/user/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ uuid, password }),
    });
    const { access_token } = (await login.json()) as { access_token: string };
    const asHolder = async (path: string, body?: unknown) => {
      const response = await fetch(`${holderUrl}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const holderKey = walletKey("EdDSA");
    const offer = await createOffer(platform, tenant);
    const received = await asHolder("/v1/oid4vci/receive", {
      credential_offer_uri: offer.deep_link,
      notarize_on_ledger: true,
      holder_did: didKeyOf(holderKey),
      private_key: holderKey.privateKey.export({ format: "jwk" }).d,
    });
    expect(received.status, JSON.stringify(received.body)).toBe(201);
    const id = received.body.credential_id as string;

    // Nothing is mined yet (anvil without automining): the reference is pending, and says so.
    const before = await asHolder(`/v1/vc/${id}`);
    expect(before.body.reference).toMatchObject({
      block_chain: `EIP155:${ANVIL_CHAIN_ID}`,
      state: "pending",
      chain_id: ANVIL_CHAIN_ID,
    });
    expect(before.body.reference).not.toHaveProperty("transaction_hash");

    // Poll: mine a block, read the holder's view, until the batch has its confirmations.
    const deadline = Date.now() + POLL_DEADLINE_MS;
    let detail = before.body;
    while ((detail.reference as Reference).state !== "anchored") {
      if (Date.now() > deadline) throw new Error(`not anchored in time: ${JSON.stringify(detail.reference)}`);
      await anvil.mine(1);
      detail = (await asHolder(`/v1/vc/${id}`)).body;
    }
    const reference = detail.reference as Reference;
    expect(reference).toMatchObject({
      block_chain: `EIP155:${ANVIL_CHAIN_ID}`,
      chain_id: ANVIL_CHAIN_ID,
      transaction_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      block_number: expect.any(Number),
      inclusion_proof: { root: expect.stringMatching(/^[0-9a-f]{64}$/), leaf_index: 0, tree_size: 1 },
    });

    // The issuer's record of the same credential names the same anchor.
    const record = await fetch(`${platform.url("credential-issuer")}/v1/credentials/${detail.issuer_credential_id}`, {
      headers: { "x-api-key": tenant.apiKey },
    });
    expect(record.status).toBe(200);
    const issuerView = (await record.json()) as { reference: Reference };
    const { block_chain: _holderSide, ...sameFields } = reference;
    expect(issuerView.reference).toEqual({ chain: `eip155:${ANVIL_CHAIN_ID}`, ...sameFields });
    // Another tenant's API key does not see it.
    const stranger = await applyTenant(platform, "evm-other");
    const hidden = await fetch(`${platform.url("credential-issuer")}/v1/credentials/${detail.issuer_credential_id}`, {
      headers: { "x-api-key": stranger.apiKey },
    });
    expect(hidden.status).toBe(404);

    // The CLI, with nothing of the platform: the holder's stored credential, then the issuer's record.
    const holderFile = join(dir, "holder-credential.json");
    writeFileSync(holderFile, JSON.stringify(detail));
    const fromHolder = await cliVerify(holderFile, anvil.url);
    expect(fromHolder.stdout).toMatch(
      new RegExp(
        `^verified: the credential's salted digest .* transaction ${reference.transaction_hash}, block ${reference.block_number} of eip155:${ANVIL_CHAIN_ID}`,
      ),
    );
    // The same reference checked by code written here from the documented formats (not the CLI's).
    const issuerJwt = (detail.raw_credential as string).split("~")[0]!;
    const independent = reference as unknown as EvmReference;
    expect(await checkEvmReference(anvil.url, issuerJwt, independent)).toBe("ok");
    expect(await checkEvmReference(anvil.url, `${issuerJwt}x`, independent)).toBe("digest");
    const wrongRoot = { ...independent.inclusion_proof, root: "00".repeat(32) };
    expect(await checkEvmReference(anvil.url, issuerJwt, { ...independent, inclusion_proof: wrongRoot })).toBe("root");
    const issuerFile = join(dir, "issuer-record.json");
    writeFileSync(issuerFile, JSON.stringify(issuerView));
    expect((await cliVerify(issuerFile, anvil.url)).stdout).toMatch(/^verified: salted digest /);

    // Tampered: each fails with the check that caught it (the command's own code, in process).
    const verify = async (document: unknown) => {
      const file = join(dir, "tampered.json");
      writeFileSync(file, JSON.stringify(document));
      const errors: string[] = [];
      const code = await runNotarizationVerify(
        { positionals: [file], rpcUrl: anvil.url, confirmations: String(CONFIRMATIONS) },
        { out: () => {}, err: (line) => errors.push(line) },
      );
      return { code, errors };
    };
    const otherCredential = `${(detail.raw_credential as string).split("~")[0]}x~`;
    expect(await verify({ ...detail, raw_credential: otherCredential })).toEqual({
      code: 1,
      errors: ["not verified: the reference is not for this credential (digest differs)"],
    });
    const otherBlock = (reference.block_number as number) + 1;
    expect(await verify({ ...issuerView, reference: { ...issuerView.reference, block_number: otherBlock } })).toEqual(
      expect.objectContaining({
        code: 1,
        errors: expect.arrayContaining([
          `not verified: the transaction is in block ${reference.block_number}, not ${otherBlock}`,
        ]),
      }),
    );
    const otherRoot = "0".repeat(64);
    const tamperedProof = { ...(reference.inclusion_proof as object), root: otherRoot };
    expect(await verify({ ...detail, reference: { ...reference, inclusion_proof: tamperedProof } })).toEqual({
      code: 1,
      errors: [
        "not verified: the inclusion proof does not lead from salted_digest to the batch root",
        "not verified: the transaction carries another batch root",
      ],
    });
    // A pending reference is not verified.
    expect(await verify(before.body)).toMatchObject({ code: 2 });
  }, 240_000);
});
