// Administration from the shell, against the same database the server uses:
//   make cli ARGS="project create 'My project'"   → prints a new project's keys (once)
//   make cli ARGS="key create <projectId>"         → another key pair for a project
//   make cli ARGS="project list"                   → projects and their public keys
//   make cli ARGS="connections reencrypt"          → LLM connection secrets rewritten under ENCRYPTION_KEY
//                                                    (after a rotation: old key in ENCRYPTION_KEY_PREVIOUS)
//   make cli ARGS="analytics feed-off"             → the change feed to ClickHouse turned off (no instance
//                                                    uses TALLY_CLICKHOUSE_URL any more); queued changes forgotten
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/orm.ts';
import { addKeyPair, createProject, listProjects } from './store/projects.ts';
import { Project } from './db/entities.ts';
import { createLogger } from './logger.ts';
import { resolveKeyring } from './secrets/encryption-keys.ts';
import { reencryptConnections } from './secrets/reencrypt.ts';
import { kysely } from './store/sql.ts';
import { feedOff } from './store/analytics-changes.ts';

const usage = 'usage: cli.ts project create <name> | project list | key create <projectId> | connections reencrypt | analytics feed-off';

async function main(argv: string[]) {
  const config = loadConfig();
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteSharedBuffersMb: config.pgliteSharedBuffersMb,
  });
  try {
    const em = db.em();
    const [noun, verb, arg] = argv;
    if (noun === 'project' && verb === 'create' && arg) {
      const keys = await addKeyPair(em, await createProject(em, arg), undefined, 'created by the CLI');
      console.log(JSON.stringify(keys, null, 2));
    } else if (noun === 'project' && verb === 'list') {
      console.log(JSON.stringify(await listProjects(em), null, 2));
    } else if (noun === 'key' && verb === 'create' && arg) {
      if (!(await em.findOne(Project, { id: arg }))) throw new Error(`no project with id ${arg}`);
      console.log(JSON.stringify(await addKeyPair(em, arg, undefined, 'created by the CLI'), null, 2));
    } else if (noun === 'connections' && verb === 'reencrypt') {
      const keyring = resolveKeyring(config, createLogger('warn'));
      console.log(JSON.stringify(await reencryptConnections(kysely(em), keyring)));
    } else if (noun === 'analytics' && verb === 'feed-off') {
      const forgotten = await db.exclusively(() => feedOff(kysely(em)));
      console.log(JSON.stringify({ feed: 'off', forgottenChanges: forgotten }));
    } else {
      console.error(usage);
      process.exitCode = 2;
    }
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e instanceof ConfigError ? e.message : `error: ${(e as Error).message}`);
  process.exit(e instanceof ConfigError ? 2 : 1);
});
