/** A person's input that cannot be used as given: the CLI says so and exits 2, the dashboard answers 400. */
export class UsageError extends Error {
  override name = 'UsageError';
}
