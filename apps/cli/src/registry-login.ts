/**
 * `registry login`, as doctl's: docker credentials for the account's registries (the tool
 * registry-docker-config, read-write unless `--read-only`), merged into docker's config
 * (`$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`; docker-config.ts): the registry
 * host's entry is replaced, every other host and setting kept, the file replaced atomically. The
 * token is never printed; the command says where it was written.
 */
import { InputError } from '@cloudcall/core';
import { Command, Option } from 'commander';

/** What the command line gives the login. */
export interface LoginArgs {
  ReadWrite: boolean;
  ExpirySeconds?: number;
}

/** The `registry-login` command (`registry login`): its flags, and the run it hands them to. */
export function registryLoginCommand(
  io: { stdout: (text: string) => void; stderr: (text: string) => void },
  connection: readonly Option[],
  run: (args: LoginArgs, local: Record<string, unknown>) => Promise<void>,
): Command {
  const command = new Command('registry-login')
    .summary('Log docker in to the container registry')
    .description(
      "Writes docker credentials for the account's container registries (registry.digitalocean.com) into docker's config ($DOCKER_CONFIG/config.json, else ~/.docker/config.json), merged with what is there and written atomically. Read-write unless --read-only. The token is never printed.",
    )
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .addOption(new Option('--expiry-seconds <seconds>', 'the credentials expire after this many seconds'))
    .addOption(new Option('--read-only', 'credentials that pull only'));
  for (const option of connection) command.addOption(option.helpGroup('Global options:'));
  command.action(async (flags: Record<string, unknown>) => {
    const { expirySeconds, readOnly, ...local } = flags;
    const args: LoginArgs = { ReadWrite: readOnly !== true };
    if (expirySeconds !== undefined) {
      const text = String(expirySeconds);
      if (!/^\d{1,10}$/.test(text) || Number(text) < 1) {
        throw new InputError(`must be a whole number of seconds, 1 or more, not ${text}`, '--expiry-seconds');
      }
      args.ExpirySeconds = Number(text);
    }
    await run(args, local);
  });
  return command;
}
