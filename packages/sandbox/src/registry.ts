/**
 * @cloudcall/sandbox/registry: images put into the sandbox's container registry, as a push would
 * (`sandbox.store.write((world) => pushImage(world, 'example', 'web', 'v1', now))`). An entry of
 * its own, so that a program that loads the sandbox (the CLI's `--sandbox`) does not load the
 * registry's model until a request needs it.
 */
export { type PushOptions, pushImage } from './routes/registry-model.js';
