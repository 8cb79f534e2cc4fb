/**
 * The re-entrancy guard of a connection's pump (write the completed responses, then dispatch
 * more requests), used by KafkaConnection (kafka-connection.ts), the state machine of both TCP
 * and WebSocket `/kafka` connections.
 *
 * A pass can cause another run before it returns: a handler that completes synchronously inside
 * dispatch asks to pump again. Recursing there would write responses from inside the dispatch
 * loop, out from under it; instead such a call only marks the running loop to make one more pass.
 * Once a pass ends with nothing asked, `settle` runs (resume reading, finish a graceful stop).
 */
export class CoalescingPump {
  private running = false;
  private again = false;

  /**
   * `pass` returns false to stop at once without settling (the connection closed under it);
   * `settle` runs after the last pass of a run that was not stopped.
   */
  constructor(
    private readonly pass: () => boolean,
    private readonly settle: () => void,
  ) {}

  /** Runs passes until none asks for another, or folds into the run already in progress. */
  run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        if (!this.pass()) return;
      } while (this.again);
      this.settle();
    } finally {
      this.running = false;
    }
  }
}
