import {
  generatePrivateKey,
  importPrivateJwk,
  importPublicJwk,
  signCompactJws,
  verifyCompactJws,
} from "@attesto/protocol";
import { compactVerify, importJWK, SignJWT } from "jose";

/**
 * CPU per JWS operation, jose on imported CryptoKeys (WebCrypto jobs on the thread pool, what the
 * flows used before issue 28's "crypto on cached keys" lever) against `@attesto/protocol`'s
 * keys/jws.ts (node:crypto's synchronous sign/verify on KeyObjects, what they use now), for ES256
 * and EdDSA, and the key imports each side does when a key is not cached. process.cpuUsage
 * counts every thread (the WebCrypto jobs too); the operations run interleaved in rounds, the
 * median of the rounds is printed:
 *
 *   npm run bench:experiment -- jws-ops [rounds] [operations per round]
 */
const rounds = Number(process.argv[2] ?? 7);
const perRound = Number(process.argv[3] ?? 500);

const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
async function perOperation(count: number, operation: () => unknown): Promise<number> {
  const start = cpuMicros();
  for (let i = 0; i < count; i++) await operation();
  return (cpuMicros() - start) / count;
}

for (const [alg, type] of [
  ["ES256", "p256"],
  ["EdDSA", "ed25519"],
] as const) {
  const privateJwk = generatePrivateKey(type).export({ format: "jwk" });
  const { d: _d, ...publicJwk } = privateJwk;
  const [josePrivate, josePublic] = [
    await importJWK(privateJwk as never, alg),
    await importJWK(publicJwk as never, alg),
  ];
  const [privateKey, publicKey] = [importPrivateJwk(privateJwk), importPublicJwk(publicJwk)];
  const payload = {
    iss: "https://issuer.example/acme",
    aud: "https://issuer.example/acme",
    iat: 1,
    jti: "j",
    nonce: "n".repeat(43),
  };
  const jws = await new SignJWT(payload).setProtectedHeader({ alg, typ: "jwt" }).sign(josePrivate);
  const operations: Record<string, () => unknown> = {
    "sign, jose (CryptoKey)": () => new SignJWT(payload).setProtectedHeader({ alg, typ: "jwt" }).sign(josePrivate),
    "sign, keys/jws (KeyObject)": () => signCompactJws(alg, { typ: "jwt" }, payload, privateKey),
    "verify, jose (CryptoKey)": () => compactVerify(jws, josePublic, { algorithms: [alg] }),
    "verify, keys/jws (KeyObject)": () => verifyCompactJws(jws, publicKey, [alg]),
    "import public JWK, jose": () => importJWK(publicJwk as never, alg),
    "import public JWK, keys/jws": () => importPublicJwk(publicJwk),
    "import private JWK, jose": () => importJWK(privateJwk as never, alg),
    "import private JWK, keys/jws": () => importPrivateJwk(privateJwk),
  };
  const samples: Record<string, number[]> = {};
  for (const operation of Object.values(operations)) await perOperation(perRound / 2, operation);
  for (let round = 0; round < rounds; round++) {
    for (const [name, operation] of Object.entries(operations)) {
      const values = samples[name] ?? [];
      values.push(await perOperation(perRound, operation));
      samples[name] = values;
    }
  }
  for (const [name, values] of Object.entries(samples)) {
    values.sort((a, b) => a - b);
    const median = values[Math.floor(values.length / 2)]!;
    console.log(`${alg.padEnd(6)} ${name.padEnd(30)} ${median.toFixed(1).padStart(7)} µs CPU per operation`);
  }
}
