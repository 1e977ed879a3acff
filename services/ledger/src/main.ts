import { runServiceMain } from "@attesto/runtime/service";
import { ledger } from "./service.js";

await runServiceMain(ledger);
