/**
 * Loads what a config names by module: a path (relative to the config's folder) or an installed
 * package, TypeScript included (jiti). Third-party plugins and the files plugin's custom storage
 * are loaded this way. Errors name what was asked for and where it was looked for.
 */
import { createSourceLoader } from './jiti';
import { isAbsolute, resolve } from 'node:path';

export class ModuleNotFoundError extends Error {}

/** The default export of module `name` (or the module itself when it has none). */
export async function importModule<T = unknown>(name: string, baseDir: string): Promise<T> {
  const isPath = name.startsWith('.') || isAbsolute(name);
  let target: string;
  try {
    target = isPath ? resolve(baseDir, name) : require.resolve(name, { paths: [baseDir] });
  } catch {
    throw new ModuleNotFoundError(`module '${name}' is not an installed package`);
  }
  const jiti = createSourceLoader(__filename);
  try {
    return await jiti.import<T>(target, { default: true });
  } catch (err) {
    throw new Error(`module '${name}' could not be loaded from ${target}: ${(err as Error).message}`, { cause: err });
  }
}
