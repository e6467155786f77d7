/** Generated thumbnails and previews, per kernel, bounded in bytes; least recently used dropped first. */
export interface CachedImage {
  data: Buffer;
  contentType: string;
}

export class ImageCache {
  private readonly entries = new Map<string, CachedImage>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get(key: string): CachedImage | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: CachedImage): void {
    if (value.data.length > this.maxBytes / 4 || this.entries.has(key)) return;
    this.entries.set(key, value);
    this.bytes += value.data.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.data.length;
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
