export { wrap } from "./lib/wrap.js";
export { align } from "./lib/align.js";
