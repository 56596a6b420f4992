// Slash-command completion, shared by the chat webview and the tests.

export interface SlashCommand {
  name: string;
  description: string;
  hint?: string;
}

/** completeSlash returns the commands whose name starts with what follows "/" in input. */
export function completeSlash(commands: SlashCommand[], input: string): SlashCommand[] {
  if (!input.startsWith("/") || input.includes(" ")) return [];
  const prefix = input.slice(1).toLowerCase();
  return commands.filter((c) => c.name.toLowerCase().startsWith(prefix));
}
