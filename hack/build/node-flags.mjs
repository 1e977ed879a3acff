// The V8 flags the all-in-one process runs with: `npm start` (package.json), the image's CMD
// (Dockerfile) and the bench's all-in-one (hack/bench/topology.ts); test/build/runtime-tree.test.ts
// checks the first two name exactly these. Plain JavaScript: read before anything is compiled.
//
// --max-semi-space-size=32: V8's young generation grows to 2 x 32 MiB instead of 2 x 16 MiB. Under
// load each request allocates its short-lived objects there; with twice the room, scavenges run
// half as often and fewer objects live long enough to be promoted to the old generation (whose
// marking and compaction cost more). Issuance at c=16, all-in-one on the embedded database,
// alternating windows on a loaded machine, node CPU per flow (medians): 3.65 -> 2.57 ms (64 MiB:
// 2.52), and over the lever's JavaScript changes 2.36 -> 2.21 ms; RSS under load up to ~85 MiB
// more. hack/bench/README.md, "Lever: the node process's own CPU".
export const ALL_IN_ONE_NODE_FLAGS = ["--max-semi-space-size=32"];
