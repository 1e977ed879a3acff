// reflect-metadata must be loaded before @peculiar/x509, which throws at import otherwise.
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as ReturnType<typeof x509.cryptoProvider.get>);

/** @peculiar/x509, initialised with Node's WebCrypto. Import it from here, never directly. */
export { x509 };
