import { type IssuerDouble, startIssuerDouble } from "./issuer-double.js";
import { type Account, startTestHolder, type TestHolder } from "./test-holder.js";

export interface HolderWithIssuer {
  holder: TestHolder;
  issuer: IssuerDouble;
  account: Account;
  close(): Promise<void>;
}

/** The holder, an issuer double anchored on the holder's ledger double and one holder account. */
export async function startHolderWithIssuer(): Promise<HolderWithIssuer> {
  const holder = await startTestHolder();
  const issuer = await startIssuerDouble(holder.ledger);
  return {
    holder,
    issuer,
    account: await holder.account(),
    close: async () => {
      await issuer.close();
      await holder.close();
    },
  };
}
