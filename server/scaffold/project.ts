/**
 * `objectql init`: the files of a minimal application (a config, one object, its permissions, a
 * README, npm scripts), made from the project's name, the version of objectql to depend on and
 * two API keys of which only the hashes are written.
 */
export interface ProjectSettings {
  name: string;
  version: string;
  keys: { admin: { key: string; hash: string }; member: { key: string; hash: string } };
}

export function projectFiles(settings: ProjectSettings): Record<string, string> {
  const { name, version, keys } = settings;
  return {
    'package.json': `${JSON.stringify(
      {
        name,
        version: '0.1.0',
        private: true,
        scripts: {
          start: 'objectql serve',
          dev: 'objectql dev',
          'generate:types': 'objectql generate types --out objectql-types.ts',
        },
        dependencies: { objectql: `^${version}` },
      },
      null,
      2,
    )}\n`,
    '.gitignore': 'node_modules/\ndata/\nuploads/\n',
    'objectql.config.ts': `import type { ObjectQLConfig } from 'objectql';

// Every key is optional; the README of objectql lists them all.
export default {
  port: Number(process.env.PORT ?? 3000),
  metadata: ['./metadata'],
  datasources: {
    // A SQLite file, created on first start. PostgreSQL: { driver: 'sql', client: 'pg', connection: process.env.DATABASE_URL }
    default: { driver: 'sql', client: 'better-sqlite3', connection: { filename: './data/app.sqlite' } },
  },
  plugins: {
    rpc: true, // POST /api/objectql
    rest: true, // /api/data/:object
    'metadata-api': true, // /api/metadata/objects
    openapi: true, // the API reference at /api/objectql/docs
    graphql: true, // /api/graphql (GraphiQL in a browser)
    auth: {
      // X-API-Key: only the keys' hashes are kept here (make one with \`npx objectql hash-key\`).
      apiKeys: [
        { keyHash: '${keys.admin.hash}', user: { id: 'admin', roles: ['admin'] } },
        { keyHash: '${keys.member.hash}', user: { id: 'member-1', roles: ['member'] } },
      ],
      sessions: true, // Studio signs in by trading a key for a session cookie
    },
    'rate-limit': true,
    studio: true, // the web console at /studio: sign in with one of the keys above
  },
  security: { adminRoles: ['admin'] },
} satisfies ObjectQLConfig;
`,
    'metadata/task.object.yml': `# One object: its records are served by every door the config turns on.
label: Task
description: Something to do.

fields:
  title:
    type: text
    required: true
    max_length: 200
  done:
    type: boolean
    defaultValue: false
  due:
    type: date
  priority:
    type: select
    options: [low, normal, high]
    defaultValue: normal
  notes:
    type: textarea
`,
    'metadata/task.permission.yml': `# Admins (security.adminRoles) may do anything. A member sees and changes only the tasks it
# created, and may not delete them.
permissions:
  - profile: member
    allow_read: true
    allow_create: true
    allow_edit: true
    allow_delete: false
    record_filters:
      - [created_by, "=", $current_user]
`,
    'README.md': `# ${name}

A service made with [objectql](https://www.npmjs.com/package/objectql): the objects in
\`metadata/\` are served over REST, JSON-RPC and GraphQL, with an API reference.

\`\`\`sh
npm install
npm start      # http://localhost:3000 (PORT changes it)
npm run dev    # reloads when metadata/ or the config changes
\`\`\`

Every data request names its caller with an API key (\`X-API-Key\`). \`objectql init\` printed two
keys once, an admin's and a member's; only their hashes are in \`objectql.config.ts\`. Make new ones
with \`npx objectql hash-key\`.

\`\`\`sh
curl -s localhost:3000/api/data/task -H "X-API-Key: $KEY"
curl -s localhost:3000/api/data/task -H "X-API-Key: $KEY" -H 'content-type: application/json' -d '{"title": "First task"}'
\`\`\`

- \`metadata/task.object.yml\`: the fields of a task; add \`<name>.object.yml\` files for more objects.
- \`metadata/task.permission.yml\`: who may read and change which tasks.
- \`npm run generate:types\`: TypeScript types and a typed client of these objects.
`,
  };
}
