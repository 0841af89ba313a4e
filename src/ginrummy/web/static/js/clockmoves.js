// The moves the turn clock played, as a state tells them (`clock_moves`, rebuilt by the
// server from its stored events): after a reload, or for a spectator arriving late, a move
// the clock made still reads as the clock's (docs/protocol.md, `state`).

/**
 * Adds the state's `clock_moves` of the current hand to `clockMoves` ("hand:index" ->
 * action the clock played), the action read from that line of `view.log` (public notation:
 * a stock draw names no card). A key a live `notice` already set is kept as it is.
 */
export function seedClockMoves(clockMoves, state) {
  const view = state && state.view;
  const log = (view && view.log) || [];
  for (const move of (state && state.clock_moves) || []) {
    const key = `${move.hand}:${move.index}`;
    if (clockMoves.has(key)) continue;
    const entry = view && view.hand_number === move.hand ? log[move.index] : undefined;
    clockMoves.set(key, entry ? String(entry.action || "") : "");
  }
}
