import { vi } from 'vitest';

/** A file the console saved: its name and content. */
export interface SavedFile {
  name: string;
  blob: Blob;
}

/**
 * Catches the files the console saves, at the link that saves them (jsdom has no object URLs):
 * answers the list they are added to. Undone by `vi.unstubAllGlobals()` and `vi.restoreAllMocks()`.
 */
export function captureDownloads(): SavedFile[] {
  const saved: SavedFile[] = [];
  const blobs = new Map<string, Blob>();
  vi.stubGlobal(
    'URL',
    Object.assign(globalThis.URL, {
      createObjectURL: (blob: Blob) => {
        const url = `blob:test/${blobs.size}`;
        blobs.set(url, blob);
        return url;
      },
      revokeObjectURL: () => undefined,
    }),
  );
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ name: this.download, blob: blobs.get(this.href)! });
  });
  return saved;
}
