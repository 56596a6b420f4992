// The client file system of ACP: reads come from the editor's open
// documents (unsaved text included), writes go through the editor.

/** What the editor offers the fs service. */
export interface DocumentHost {
  /** The text of the open document for path, or undefined if none is open. */
  openDocumentText(path: string): string | undefined;
  /** The file's text on disk (throws when it does not exist). */
  readDisk(path: string): Promise<string>;
  /** Replaces the document's whole text as one undoable edit and saves it (creating the file if needed). */
  applyAndSave(path: string, text: string): Promise<void>;
}

/** Thrown for a read of a file that is neither open nor on disk. */
export class NotFoundError extends Error {
  constructor(readonly path: string) {
    super(`${path}: no such file`);
  }
}

/**
 * FsService serves fs/read_text_file and fs/write_text_file. Paths must be
 * absolute (ACP requires it).
 */
export class FsService {
  constructor(private readonly host: DocumentHost) {}

  /** read returns the text of path from the open document, else the disk; line is 1-based, limit counts lines. */
  async read(params: { path: string; line?: number | null; limit?: number | null }): Promise<{ content: string }> {
    checkAbsolute(params.path);
    let text = this.host.openDocumentText(params.path);
    if (text === undefined) {
      try {
        text = await this.host.readDisk(params.path);
      } catch {
        throw new NotFoundError(params.path);
      }
    }
    return { content: sliceLines(text, params.line ?? undefined, params.limit ?? undefined) };
  }

  async write(params: { path: string; content: string }): Promise<Record<string, never>> {
    checkAbsolute(params.path);
    await this.host.applyAndSave(params.path, params.content);
    return {};
  }
}

function checkAbsolute(path: string): void {
  if (!(path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path))) {
    throw new Error(`${path}: ACP file paths must be absolute`);
  }
}

/** sliceLines returns limit lines of text starting at the 1-based line, keeping line endings. */
export function sliceLines(text: string, line?: number, limit?: number): string {
  if (line === undefined && limit === undefined) return text;
  const lines = text.split(/(?<=\n)/);
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit === undefined ? lines.length : start + limit;
  return lines.slice(start, end).join("");
}
