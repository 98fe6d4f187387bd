// The figures' formatting shared by the report sections (report.mjs and the
// *report.mjs it imports): medians of samples and the "–" of a figure the
// run did not measure.

/** The median of the finite values of xs; NaN when there is none. */
export const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
/** Milliseconds to three significant figures at most. */
export const ms = (x) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)) : "–");
export const mib = (b) => (Number.isFinite(b) ? (b / 2 ** 20).toFixed(1) : "–");
export const kib = (b) => (Number.isFinite(b) ? (b / 1024).toFixed(1) : "–");
/** " (min–max)" of several samples, in ms; nothing for one. */
export const spread = (xs) => (xs.length > 1 ? ` (${ms(Math.min(...xs))}–${ms(Math.max(...xs))})` : "");
/** A target's verdict: met, not met, or n/a when it was not measured. */
export const ok = (b) => (b === undefined ? "n/a" : b ? "met" : "**not met**");
/** A figure to three significant figures at most, signed; "–" when unknown. */
export const fmt = (x) => (Number.isFinite(x) ? (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2)) : "–");
/** The ratio a / b as "1.23×"; "–" when either is unknown. */
export const ratio = (a, b) => (Number.isFinite(a / b) ? (a / b).toFixed(2) + "×" : "–");
