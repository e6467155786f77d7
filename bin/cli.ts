/** The `objectql` command line: `objectql serve --config FILE [--port N]`, `objectql hash-key [KEY]`. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, createKernel, loadConfigFile, MetadataError, PluginError } from '../server';
import { hashApiKey } from '../plugins/auth/api-keys';
import { generate, GENERATE_HELP, GENERATE_USAGE } from './generate';

const USAGE = `Usage: objectql serve [--config FILE] [--port N]
       objectql hash-key [KEY]
${GENERATE_USAGE}
  --config FILE  objectql.config.(ts|js|mjs|json|yml); default ./objectql.config.ts
  --port N       port to listen on (also PORT); overrides the config's port
  hash-key KEY   prints sha256:<hex>, the keyHash of an auth plugin API key; reads the key from
                 stdin when KEY is not given (keeps it out of the shell history)
${GENERATE_HELP}`;

const DEFAULT_CONFIGS = ['objectql.config.ts', 'objectql.config.js', 'objectql.config.mjs', 'objectql.config.json', 'objectql.config.yml'];

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'generate') return generate(argv.slice(1), DEFAULT_CONFIGS.find((f) => existsSync(resolve(f))));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { config: { type: 'string', short: 'c' }, port: { type: 'string', short: 'p' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [command] = parsed.positionals;
  if (parsed.values.help || !command) {
    process.stdout.write(USAGE);
    return command || parsed.values.help ? 0 : 2;
  }
  if (command === 'hash-key') return hashKey(parsed.positionals.slice(1));
  if (command !== 'serve') {
    process.stderr.write(`Unknown command '${command}'\n\n${USAGE}`);
    return 2;
  }
  const portText = parsed.values.port ?? process.env.PORT;
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    process.stderr.write(`Invalid port '${portText}': use a whole number from 0 to 65535\n`);
    return 2;
  }
  const configFile = parsed.values.config ?? DEFAULT_CONFIGS.find((f) => existsSync(resolve(f)));
  try {
    const config = configFile ? await loadConfigFile(configFile) : undefined;
    const kernel = await createKernel(config ? { ...config, ...(port !== undefined ? { port } : {}) } : { port });
    // Handlers go in before start, so a signal during a slow start still ends in a clean stop.
    let started = false;
    let stopRequested: string | undefined;
    const shutdown = (signal: string) => {
      if (!started) {
        stopRequested = signal;
        return;
      }
      kernel.logger.info({ signal }, 'stopping');
      kernel.stop().then(
        () => process.exit(0),
        (err) => {
          kernel.logger.error({ err }, 'error while stopping');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
    await kernel.start();
    started = true;
    if (stopRequested) shutdown(stopRequested);
    return 0;
  } catch (err) {
    const known = err instanceof ConfigError || err instanceof MetadataError || err instanceof PluginError;
    process.stderr.write(`objectql: ${known ? err.message : ((err as Error).stack ?? String(err))}\n`);
    return 1;
  }
}

/** `objectql hash-key [KEY]`: the `keyHash` of an API key, from the argument or from stdin (one trailing newline dropped). */
async function hashKey(args: string[]): Promise<number> {
  if (args.length > 1) {
    process.stderr.write(`hash-key takes one key, got ${args.length} arguments\n\n${USAGE}`);
    return 2;
  }
  let key = args[0];
  if (key === undefined) {
    if (process.stdin.isTTY) {
      process.stderr.write(`hash-key needs a key: as an argument or on stdin\n\n${USAGE}`);
      return 2;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
    key = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  if (!key) {
    process.stderr.write('hash-key: the key is empty\n');
    return 2;
  }
  process.stdout.write(`${hashApiKey(key)}\n`);
  return 0;
}
