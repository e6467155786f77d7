/**
 * Makes the next metadata load read hook and action files again. jiti keeps what it loads in
 * Node's module cache (require.cache), and a later load, even by a new jiti, gets the module from
 * there: without this a reload would run the old hooks. Forgotten are the modules inside the
 * metadata folders (the code files and the helpers beside them), never a package (node_modules):
 * a package, and the server's own modules, must stay one instance each.
 */
import { sep } from 'node:path';

export function forgetModulesIn(folders: readonly string[], cache: NodeJS.Dict<NodeModule> = require.cache): void {
  const prefixes = folders.map((folder) => (folder.endsWith(sep) ? folder : folder + sep));
  for (const file of Object.keys(cache)) {
    if (file.includes(`${sep}node_modules${sep}`)) continue;
    if (prefixes.some((prefix) => file.startsWith(prefix))) delete cache[file];
  }
}
