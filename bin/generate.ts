/** `objectql generate types [--config FILE] [--out FILE] [--client MODULE]`: see server/codegen/typescript.ts. */
import { writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile, resolveConfig } from '../server';
import { MetadataRegistry } from '../kernel/metadata';
import { generateTypes } from '../server/codegen/typescript';
import { commandFailure } from './startup-failure';

export const GENERATE_USAGE = `       objectql generate types [--config FILE] [--out FILE] [--client MODULE]
`;

export const GENERATE_HELP = `  generate types TypeScript types of every object and a typed createClient, written to --out
                 (default objectql-types.ts; - for stdout); --client is the module it imports the
                 client from (default objectql/client)
`;

export async function generate(args: string[], configFile: string | undefined): Promise<number> {
  let file = configFile;
  try {
    const parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { out: { type: 'string', short: 'o' }, client: { type: 'string' }, config: { type: 'string', short: 'c' } },
    });
    const [what, ...rest] = parsed.positionals;
    if (what !== 'types' || rest.length > 0) {
      process.stderr.write(`generate: say what to generate ('types')\n\nUsage:\n${GENERATE_USAGE}\n${GENERATE_HELP}`);
      return 2;
    }
    file = parsed.values.config ?? configFile;
    const config = file ? await loadConfigFile(file) : resolveConfig({});
    const registry = await MetadataRegistry.load(config.metadata, { customTypes: config.metadataTypes });
    const source = config.metadata.map((folder) => relative(process.cwd(), folder) || '.').join(', ');
    const text = generateTypes(registry.objects(), { clientModule: parsed.values.client, source });
    const out = parsed.values.out ?? 'objectql-types.ts';
    if (out === '-') process.stdout.write(text);
    else {
      writeFileSync(resolve(out), text);
      process.stderr.write(`objectql: wrote the types of ${registry.objects().length} objects to ${out}\n`);
    }
    return 0;
  } catch (err) {
    const failure = commandFailure(err, { configFile: file && resolve(file) });
    process.stderr.write(`objectql: ${failure.message}\n`);
    return failure.code;
  }
}
