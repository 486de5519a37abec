export { fold } from './fold.js'
