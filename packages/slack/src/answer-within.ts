/**
 * Slack gives up on a request after 3 s (and may retry it): answer with `fallback` when
 * `work` is slower than `ms`, and hand its late result to `onLate` (a response_url post).
 */
export async function answerWithin<T>(
  work: Promise<T>,
  ms: number,
  fallback: T,
  onLate: (result: T) => Promise<void>,
  onError: (err: unknown) => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = Symbol('late');
  const deadline = new Promise<typeof late>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  try {
    const first = await Promise.race([work, deadline]);
    if (first !== late) return first;
  } finally {
    clearTimeout(timer);
  }
  work.then(onLate).catch(onError);
  return fallback;
}
