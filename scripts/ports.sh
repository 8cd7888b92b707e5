# Sourced by the check scripts: listening PORT tells whether something listens on 127.0.0.1:PORT,
# free_port prints a port nothing listens on (20000-59999), never a standard one of the machine's services.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
  local port
  while true; do
    port=$(( 20000 + RANDOM % 40000 ))
    listening "$port" || { echo "$port"; return; }
  done
}
