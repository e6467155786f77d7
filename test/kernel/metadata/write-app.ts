/** Test helpers: write a metadata folder to a temporary directory and load it. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MetadataError, MetadataRegistry } from '../../../kernel/metadata';

export class TempApps {
  private readonly dirs: string[] = [];

  /** Writes `files` (relative path → content) into a fresh directory and returns it. */
  write(files: Record<string, string>): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'objectql-metadata-'));
    this.dirs.push(dir);
    for (const [rel, content] of Object.entries(files)) {
      const file = path.join(dir, rel);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, content);
    }
    return dir;
  }

  load(files: Record<string, string>): Promise<MetadataRegistry> {
    return MetadataRegistry.load([this.write(files)]);
  }

  /** Loads `files` and returns the MetadataError it must fail with. */
  async loadError(files: Record<string, string>): Promise<MetadataError> {
    const dir = this.write(files);
    try {
      await MetadataRegistry.load([dir]);
    } catch (err) {
      if (err instanceof MetadataError) return err;
      throw err;
    }
    throw new Error('expected the load to fail with a MetadataError');
  }

  cleanup(): void {
    for (const dir of this.dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A small valid object file that error cases start from. */
export const BOOK = `
fields:
  title:
    type: text
    required: true
  price: number
  status:
    type: select
    options: [draft, published]
`;
