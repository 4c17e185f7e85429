/** The normal quantile of a two-sided 95 % interval. */
const Z95 = 1.959964;

/**
 * The Wilson score interval of a proportion: `successes` of `n` trials, at 95 %. Unlike the
 * normal approximation it stays inside [0, 1] and is not zero-width at 0 or n successes — what a
 * solve rate over a few dozen tasks needs (Brown, Cai & DasGupta 2001). Written here: five lines
 * of arithmetic, where a statistics library would bring far more than it gives.
 */
export function wilsonInterval(successes: number, n: number, z = Z95): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const p = successes / n;
  const z2 = z * z;
  const center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}
