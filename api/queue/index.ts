export { QueuePump } from './pump.js'
