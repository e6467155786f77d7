import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { createSourceLoader } from '../util/jiti';
import type { ZodError } from 'zod';
import { configSchema, type ResolvedConfig } from './schema';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Validates a config object (an ObjectQLConfig, or anything); every problem is reported with the key it is about. */
export function resolveConfig(input: unknown, baseDir = process.cwd()): ResolvedConfig {
  const parsed = configSchema.safeParse(input ?? {});
  if (!parsed.success) throw new ConfigError(`Invalid configuration:\n${formatIssues(parsed.error)}`);
  const config = parsed.data;
  const base = resolve(baseDir, config.baseDir ?? '.');
  return { ...config, baseDir: base, metadata: config.metadata.map((m) => resolve(base, m)) };
}

function formatIssues(error: ZodError): string {
  return error.issues
    .map((issue) => {
      const key = issue.path.length ? issue.path.map(String).join('.') : '(root)';
      const extra = issue.code === 'unrecognized_keys' ? `: ${issue.keys.map((k) => `'${k}'`).join(', ')}` : '';
      return `  - ${key}: ${issue.message}${extra}`;
    })
    .join('\n');
}

/** Loads objectql.config.(ts|js|mjs|cjs|json|yml|yaml); relative paths resolve against its folder. */
export async function loadConfigFile(file: string): Promise<ResolvedConfig> {
  const path = resolve(file);
  let raw: unknown;
  try {
    raw = await readConfigModule(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ConfigError(`Config file not found: ${path}`);
    throw new ConfigError(`Cannot read config file ${path}: ${(err as Error).message}`);
  }
  if (typeof raw === 'function') raw = await (raw as () => unknown)();
  try {
    return resolveConfig(raw, dirname(path));
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(`${path}: ${err.message}`);
    throw err;
  }
}

async function readConfigModule(path: string): Promise<unknown> {
  switch (extname(path)) {
    case '.json':
      return JSON.parse(readFileSync(path, 'utf8'));
    case '.yml':
    case '.yaml':
      return parseYaml(readFileSync(path, 'utf8'));
    case '.ts':
    case '.js':
    case '.mjs':
    case '.cjs':
    case '.mts':
    case '.cts': {
      readFileSync(path); // surfaces ENOENT with its code before jiti wraps it
      const jiti = createSourceLoader(__filename, { moduleCache: false });
      return jiti.import(path, { default: true });
    }
    default:
      throw new Error(`unsupported config file type '${extname(path)}' (use .ts, .js, .mjs, .json or .yml)`);
  }
}
