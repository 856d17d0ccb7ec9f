// The player's values (the match's state and reducer, the intake, the pacer, the
// keepalive, the core) are part of the client's API: whoever imports the client has them.
@_exported import RoshamboPlayer
