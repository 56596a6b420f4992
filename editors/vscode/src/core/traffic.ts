// The "ACP traffic" view: a tap on the agent's stdio that hands every
// JSON-RPC line, in either direction, to a sink while logging is on. The
// bytes pass through unchanged; when logging is off the tap costs a check
// per chunk.

/** The longest line logged whole; longer ones are cut with a note. */
export const maxLoggedLine = 64 * 1024;

export type Direction = "→" | "←"; // → to the agent, ← from the agent

export interface TrafficSink {
  enabled(): boolean;
  line(dir: Direction, text: string): void;
}

/** clip shortens a logged line. */
export function clip(line: string): string {
  return line.length > maxLoggedLine ? `${line.slice(0, maxLoggedLine)} … (${line.length - maxLoggedLine} more characters)` : line;
}

/** tap returns a pass-through stream that reports each complete line to the sink. */
export function tap(dir: Direction, sink: TrafficSink): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let pending = "";
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      controller.enqueue(chunk);
      if (!sink.enabled()) {
        pending = "";
        return;
      }
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const l of lines) if (l.trim() !== "") sink.line(dir, clip(l));
    },
    flush() {
      if (pending.trim() !== "" && sink.enabled()) sink.line(dir, clip(pending));
    },
  });
}
