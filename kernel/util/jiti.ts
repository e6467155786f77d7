/**
 * jiti, for what ObjectQL loads from source (a TypeScript config, hook and action files, modules by
 * path), with jiti's own Babel transform run in a short-lived child process. Babel weighs ~20 MB
 * resident once loaded, and a server that read a few .ts files at start-up would keep it for good;
 * in a child it is gone once the file is transformed. The output is the same (the same transform
 * with the same options), and jiti keeps it in its file cache, so a file is transformed once per
 * change, not on every start. Where no child can be started, the transform runs here, as before.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createJiti } from 'jiti';

type Jiti = ReturnType<typeof createJiti>;
type JitiOptions = NonNullable<Parameters<typeof createJiti>[1]>;
type Transform = NonNullable<JitiOptions['transform']>;

/** Reads {babel, options} as JSON on stdin, writes the transform's {code, error?} as JSON on stdout. */
const CHILD = `
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c)).on('end', () => {
  const { babel, options } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const { code, error } = require(babel)(options);
  process.stdout.write(JSON.stringify({ code, ...(error ? { error: { message: String(error.message) } } : {}) }));
});
`;

/** A jiti instance (see createJiti) whose transform runs in a child process. */
export function createSourceLoader(from: string, options: JitiOptions = {}): Jiti {
  const babel = babelPath();
  return createJiti(from, babel ? { ...options, transform: childTransform(babel) } : options);
}

/** jiti's Babel transform (not one of its package exports: found beside its entry), if it is where jiti 2 keeps it. */
function babelPath(): string | undefined {
  const file = join(dirname(require.resolve('jiti')), '..', 'dist', 'babel.cjs');
  return existsSync(file) ? file : undefined;
}

function childTransform(babel: string): Transform {
  return (options) => {
    const child = spawnSync(process.execPath, ['-e', CHILD], {
      input: JSON.stringify({ babel, options }),
      // The child needs none of the parent's Node options (an inspector port, preloaded modules).
      env: { ...process.env, NODE_OPTIONS: '' },
      maxBuffer: 256 * 1024 * 1024,
      windowsHide: true,
    });
    if (child.status === 0) {
      try {
        return JSON.parse(child.stdout.toString('utf8')) as ReturnType<Transform>;
      } catch {
        // falls through to the transform in this process
      }
    }
    return (createRequire(__filename)(babel) as Transform)(options);
  };
}
