/** The gateway simulator: a local HTTP implementation of the messaging gateway (spec 01). */
export { SimClock } from './clock.ts';
export type { MoInjectionInput, SimControls, SimSnapshot } from './controls.ts';
export type { Faults, SimulatorOptions, SimulatorOptionsInput } from './options.ts';
export { FaultsSchema, SimulatorOptionsSchema } from './options.ts';
export {
  parseSimulatorOptions,
  type SimHosts,
  type Simulator,
  SimulatorOptionsError,
  startSimulator,
} from './server.ts';
