/** The `objectql` command line: `objectql serve --config FILE [--port N]`, `objectql hash-key [KEY]`. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createKernel, loadConfigFile, type Kernel } from '../server';
import { hashApiKey } from '../plugins/auth/api-keys';
import { generate, GENERATE_HELP, GENERATE_USAGE } from './generate';
import { init, INIT_HELP, INIT_USAGE } from './init';
import { transfer, TRANSFER_HELP, TRANSFER_USAGE } from './transfer';
import { migrate, MIGRATE_HELP, MIGRATE_USAGE } from './migrate';
import { startupBanner, wantsBanner } from './banner';
import { explainStartupFailure } from './startup-failure';
import { dev } from './dev';

const USAGE = `Usage: objectql serve [--config FILE] [--port N]
       objectql dev [--config FILE] [--port N]
       objectql hash-key [KEY]
${INIT_USAGE}${GENERATE_USAGE}${TRANSFER_USAGE}${MIGRATE_USAGE}
  --config FILE  objectql.config.(ts|js|mjs|json|yml); default ./objectql.config.ts
  --port N       port to listen on (also PORT); overrides the config's port
  dev            serves like serve, with a readable log, and reloads when the config or a
                 metadata file changes (docs/dev-mode.md); NODE_ENV defaults to development
  hash-key KEY   prints sha256:<hex>, the keyHash of an auth plugin API key; reads the key from
                 stdin when KEY is not given (keeps it out of the shell history)
${INIT_HELP}${GENERATE_HELP}${TRANSFER_HELP}${MIGRATE_HELP}`;

const DEFAULT_CONFIGS = ['objectql.config.ts', 'objectql.config.js', 'objectql.config.mjs', 'objectql.config.json', 'objectql.config.yml'];

export async function main(argv: string[]): Promise<number> {
  const defaultConfig = DEFAULT_CONFIGS.find((f) => existsSync(resolve(f)));
  if (argv[0] === 'init') return init(argv.slice(1));
  if (argv[0] === 'generate') return generate(argv.slice(1), defaultConfig);
  if (argv[0] === 'import' || argv[0] === 'export') return transfer(argv[0], argv.slice(1), defaultConfig);
  if (argv[0] === 'migrate') return migrate(argv.slice(1), defaultConfig);
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
  if (command !== 'serve' && command !== 'dev') {
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
  if (command === 'dev') {
    if (configFile) return dev({ configFile, port });
    process.stderr.write(`objectql dev needs a config file to watch: --config FILE, or one of ${DEFAULT_CONFIGS.join(', ')} here\n`);
    return 2;
  }
  let kernel: Kernel | undefined;
  try {
    const config = configFile ? await loadConfigFile(configFile) : undefined;
    kernel = await createKernel(config ? { ...config, ...(port !== undefined ? { port } : {}) } : { port });
    const running = kernel;
    // Handlers go in before start, so a signal during a slow start still ends in a clean stop.
    let started = false;
    let stopRequested: string | undefined;
    const shutdown = (signal: string) => {
      if (!started) {
        stopRequested = signal;
        return;
      }
      running.logger.info({ signal }, 'stopping');
      running.stop().then(
        () => process.exit(0),
        (err) => {
          running.logger.error({ err }, 'error while stopping');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
    await kernel.start();
    started = true;
    if (stopRequested) shutdown(stopRequested);
    else if (wantsBanner({ env: process.env.NODE_ENV, stdoutIsTTY: process.stdout.isTTY === true })) {
      process.stdout.write(startupBanner(kernel, { development: process.env.NODE_ENV === 'development', configFile }));
    }
    return 0;
  } catch (err) {
    const explained = explainStartupFailure(err, { config: kernel?.config, configFile: configFile && resolve(configFile) });
    process.stderr.write(`objectql: ${explained ?? (err as Error).stack ?? String(err)}\n`);
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
