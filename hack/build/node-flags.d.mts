/** The V8 flags the all-in-one process runs with (node-flags.mjs). */
export declare const ALL_IN_ONE_NODE_FLAGS: string[];
