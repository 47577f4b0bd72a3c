// Waits on the real clock: the gateway targets run a real server, so time passes as it does.

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `ok` until it holds or `ms` pass; says whether it held. */
export async function until(ok: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}
