// Restart-safe sessions: after the agent restarted (a crash, "Restart the
// Agent", new settings) the chat's session is loaded again; when that is
// impossible or fails a new session is started, and the caller is told
// why so that it can say so — the next prompt never fails with "Session
// not found".
import * as acp from "@agentclientprotocol/sdk";

/** What restoring needs of a connection. */
export interface SessionPort {
  readonly canLoad: boolean;
  newSession(cwd: string, dirs: string[]): Promise<acp.NewSessionResponse>;
  loadSession(sessionId: string, cwd: string, dirs: string[]): Promise<acp.LoadSessionResponse>;
}

export type Restored =
  | { kind: "loaded"; sessionId: string; res: acp.LoadSessionResponse }
  | { kind: "new"; sessionId: string; res: acp.NewSessionResponse; why: string };

/** errorText words a failed request for the chat. */
export function errorText(err: unknown): string {
  if (err instanceof acp.RequestError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

/** isSessionNotFound: the agent does not know the session (-32002). */
export function isSessionNotFound(err: unknown): boolean {
  return err instanceof acp.RequestError && err.code === -32002;
}

/**
 * restoreSession loads sessionId on port, before which onLoading is called
 * (the replay is about to come); if the agent cannot load sessions or the
 * load fails it starts a new session and says why.
 */
export async function restoreSession(port: SessionPort, sessionId: string, cwd: string, dirs: string[], onLoading: () => void = () => {}): Promise<Restored> {
  let why = "this version of hermes-acp cannot reopen sessions";
  if (port.canLoad) {
    onLoading();
    try {
      const res = await port.loadSession(sessionId, cwd, dirs);
      return { kind: "loaded", sessionId, res };
    } catch (err) {
      why = isSessionNotFound(err) ? "the agent no longer has it (deleted, or kept in another data folder)" : `loading it failed: ${errorText(err)}`;
    }
  }
  const res = await port.newSession(cwd, dirs);
  return { kind: "new", sessionId: res.sessionId, res, why };
}

/** modelMissing: the session's model option says no model is configured (hermes-acp's "none"). */
export function modelMissing(options: acp.SessionConfigOption[] | null | undefined): boolean {
  const m = (options ?? []).find((o) => o.category === "model" || o.id === "model");
  return m !== undefined && m.type === "select" && m.currentValue === "none";
}
