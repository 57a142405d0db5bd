export { wrap } from "./lib/wrap.js";
export { align } from "./lib/align.js";
export { table } from "./lib/table.js";
