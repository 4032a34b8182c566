/**
 * `cloudcall api PATH`: any request of the platform's API, in the manner of `gh api`. The request
 * runs as the api-call tool does, through the same path as every tool command (execute.ts):
 * checked against its operation before anything is sent, guarded, audited, printed. This module
 * declares the command and its help; api-request.ts, loaded when it runs, reads the fields.
 */
import { Argument, Command, Option } from 'commander';
import type { GlobalOptions } from './program.js';

/** The api command's own flags, as commander reads them. */
export interface ApiFlags {
  method?: string;
  rawField?: string[];
  field?: string[];
  input?: string;
  paginate?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

const HELP = `
PATH is an API path such as /v2/droplets/123 (the /v2 may be left out), with a query string if
you like. "cloudcall api search --text WORDS" finds operations (the api-search tool), and
"cloudcall api describe --operation ID" shows one's parameters and body (api-describe).

Fields, as gh api reads them: -f key=value sends text; -F key=value sends true, false, null and
numbers as JSON, @FILE as the file's text and @- as stdin's. key[]=value appends to an array (key[]
alone is an empty one), key[sub]=value nests an object, key[][sub]=value makes a list of objects.
For GET and HEAD the fields are the query; for other methods they are the JSON body, unless
--input gives the body, when they are the query. The method is GET, or POST when fields or --input
are given (except with --paginate).

The request is checked before anything is sent: a path the API does not have, a method it does
not take, or a query or body that breaks the operation's schema exits 2 and sends nothing. It runs
under the guard rails of every tool: a request that destroys (every DELETE, a power-off...) asks
y/N on a terminal and needs --force elsewhere (-f is a field here), protection rules see every
resource it names, --dry-run shows the plan, and --audit-log records it. The answer is printed
whole, as JSON unless -o says otherwise.

Examples:
  cloudcall api /v2/account
  cloudcall api /v2/droplets --paginate -F per_page=200 --query 'droplets[].name'
  cloudcall api /v2/tags -f name=web                      # POST: fields make the body
  cloudcall api /v2/droplets -f name=web-1 -f size=s-1vcpu-1gb -f region=nyc3 \\
      -f image=ubuntu-24-04-x64 -F monitoring=true -f 'tags[]=web' -F user_data=@cloud-init.yml
  cloudcall api -X PUT /v2/firewalls/9cc10173-e9ea-4176-9dbc-a4cee4c4ff30 --input firewall.json
  cloudcall api -X DELETE /v2/tags/web --force
  cloudcall api -X POST /v2/droplets/123/actions -f type=power_off --dry-run
`;

/**
 * The `api` command. `shared` are the options every tool command takes (connection, output,
 * guard), `-f` excepted: here it is a field, as in gh, and `--force` has no short form. `run`
 * runs the request once the words are read.
 */
export function apiCommand(
  io: { stdout: (text: string) => void; stderr: (text: string) => void },
  shared: readonly Option[],
  run: (path: string, flags: ApiFlags & GlobalOptions) => Promise<void>,
): Command {
  const command = new Command('api')
    .summary('Send any request of the platform API, as gh api does')
    .description(
      'Send any request of the platform API (every operation of its description, beyond the named tools) and print the answer.',
    )
    .addArgument(new Argument('<path>', 'the API path, such as /v2/account or /v2/droplets?tag_name=web'))
    .addOption(
      new Option('-X, --method <method>', 'HTTP method (default GET, or POST with fields or --input)'),
    )
    .addOption(new Option('-f, --raw-field <key=value>', 'a text field (repeatable)').argParser(collect))
    .addOption(
      new Option(
        '-F, --field <key=value>',
        'a typed field: true, false, null, numbers; @FILE or @- reads a file or stdin (repeatable)',
      ).argParser(collect),
    )
    .addOption(new Option('--input <file>', 'the JSON body, from a file (- for stdin)'))
    .addOption(
      new Option('--paginate', 'GET every page of a list (following links.pages.next) and merge them'),
    )
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride()
    .addHelpText('after', HELP);
  for (const option of shared) {
    const own = option.long === '--force' ? forceOption() : option;
    command.addOption(own.helpGroup('Global options:'));
  }
  return command.action(async (path: string, flags: ApiFlags & GlobalOptions) => run(path, flags));
}

function forceOption(): Option {
  return new Option('--force', 'send a destroying request without the y/N question; needed off a terminal');
}

/**
 * How `cloudcall api` names api-call's arguments in messages: PATH, -X, a query parameter, a
 * field of the body or the --input file.
 */
export function apiFlagFor(flags: ApiFlags): (argument: string) => string {
  const implied =
    flags.method !== undefined
      ? ''
      : !flags.paginate && (flags.input !== undefined || flags.rawField?.length || flags.field?.length)
        ? ' (not given, so POST: fields or --input make a body)'
        : ' (not given, so GET)';
  return (argument) => {
    const [head = '', ...rest] = argument.split('.');
    const at = rest.join('.');
    switch (head) {
      case 'Path':
        return 'PATH';
      case 'Method':
        return `-X/--method${implied}`;
      case 'Query':
        return at ? `query parameter ${at}` : 'the query';
      case 'Body':
        if (flags.input !== undefined) return `--input${at ? ` (at ${at})` : ''}`;
        return at ? `body field ${at}` : 'the body';
      default:
        return argument;
    }
  };
}
