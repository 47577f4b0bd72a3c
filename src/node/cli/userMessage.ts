// What a command-line user reads when a command fails. The library's errors begin with the place
// that threw them (`startGateway: …`, `PiProcess.start: …`): that helps a programmer who called it,
// but at the command line the place is our code, nothing the user typed or can change. The rest of
// the message already says what went wrong and what to fix, so the place is dropped here, once,
// where every command's failure is printed.

/** One or more leading `name:` / `Class.method:` places, as the house style writes them. */
const PLACES = /^(?:[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*: )+/;

/** The error's message without the code places it starts with. */
export function userMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(PLACES, '');
}
