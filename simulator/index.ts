/** The gateway simulator: a local HTTP implementation of the messaging gateway (spec 01). */
export { SimClock } from './clock.ts';
export type { Faults, SimulatorOptions, SimulatorOptionsInput } from './options.ts';
export { FaultsSchema, SimulatorOptionsSchema } from './options.ts';
export {
  type MoInjectionInput,
  parseSimulatorOptions,
  type SimControls,
  type SimHosts,
  type SimSnapshot,
  type Simulator,
  SimulatorOptionsError,
  startSimulator,
} from './server.ts';
